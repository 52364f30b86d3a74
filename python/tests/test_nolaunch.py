import pytest

from ksnap_triton import nolaunch


class OutOfResources(Exception):
    pass


class FakeKernel:
    """Shaped like triton.compiler.compiler.CompiledKernel's launch path."""
    launches = []

    def __init__(self, behaviour="ok"):
        self.behaviour = behaviour
        self.module = None
        self._run = None
        self.loads = 0

    def _init_handles(self):
        if self.module is not None:
            return
        self.loads += 1
        if self.behaviour == "foreign-arch":
            raise RuntimeError("CUDA error: no kernel image is available")
        if self.behaviour == "too-much-shared":
            self._run = lambda *a: (_ for _ in ()).throw(OutOfResources("shared"))
            raise OutOfResources("shared memory")
        self.module, self.n_regs = object(), 72
        self._run = lambda *a: FakeKernel.launches.append(a)

    @property
    def run(self):
        if self._run is None:
            self._init_handles()
        return self._run


@pytest.fixture
def patched():
    FakeKernel.launches = []
    calls = []
    undo = nolaunch.patch(FakeKernel, on_call=calls.append, load=True)
    yield calls
    undo()


def test_launch_is_replaced_binary_still_loaded(patched):
    k = FakeKernel()
    for _ in range(3):
        k.run(1, 1, 1, 0, None, None, None, None, None, "arg")
    assert FakeKernel.launches == []
    assert patched == [k, k, k]
    assert k.loads == 1 and k.n_regs == 72
    assert nolaunch.is_stand_in(k._run)


def test_foreign_arch_load_failure_is_quiet_and_not_retried(patched):
    k = FakeKernel("foreign-arch")
    k.run(1, 1, 1)
    k._init_handles()  # launch_metadata() calls this again on every launch
    k.run(1, 1, 1)
    assert patched == [k, k] and k.loads == 1
    assert not hasattr(k, "n_regs")


def test_out_of_resources_still_reaches_the_autotuner(patched):
    k = FakeKernel("too-much-shared")
    with pytest.raises(OutOfResources):
        k.run(1, 1, 1)
    with pytest.raises(OutOfResources):  # as Triton: the launcher re-raises
        k.run(1, 1, 1)
    assert patched == []


def test_load_false_never_touches_the_device():
    calls = []
    undo = nolaunch.patch(FakeKernel, on_call=calls.append, load=False)
    try:
        k = FakeKernel()
        k.run(1, 1, 1)
        assert k.loads == 0 and calls == [k]
    finally:
        undo()


def test_undo_restores_real_launches():
    undo = nolaunch.patch(FakeKernel, on_call=lambda k: None)
    undo()
    FakeKernel.launches = []
    FakeKernel().run(7)
    assert FakeKernel.launches == [(7,)]
