from ksnap_triton import autopoints
from ksnap_triton.points import benchmark_point, current_point


class Tuner:
    def __init__(self):
        self.arg_names = ["a", "b", "M", "N", "K"]
        self.keys = ["M", "N", "K"]
        self.seen = []

    def run(self, *args, **kwargs):
        self.seen.append(current_point())
        return "ran"


class Benchmark:
    def __init__(self, x_names, line_arg):
        self.x_names, self.line_arg = x_names, line_arg


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks


def test_autotuner_key_arguments_are_the_point(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    undo = autopoints.wrap_autotuner(Tuner)
    try:
        t = Tuner()
        assert t.run("A", "B", 64, 128, K=32, grid=None) == "ran"
        with benchmark_point(provider="triton", M=1):
            t.run("A", "B", 256, 256, 256)
        assert t.seen == [{"K": 32, "M": 64, "N": 128},
                          {"K": 256, "M": 256, "N": 256, "provider": "triton"}]
        assert current_point() is None  # popped again
    finally:
        undo()
    assert Tuner.run.__name__ == "run" and not hasattr(Tuner.run, "__wrapped__")


def test_tensor_key_values_become_shapes(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)

    class T:
        shape = (8, 16)

    undo = autopoints.wrap_autotuner(Tuner)
    try:
        t = Tuner()
        t.keys = ["a"]
        t.run(T(), "B", 1, 2, 3)
        assert t.seen == [{"a": [8, 16]}]
    finally:
        undo()


def test_perf_report_x_values_and_line_are_the_point(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    undo = autopoints.wrap_mark(Mark)
    try:
        seen = []
        m = Mark(lambda **kw: seen.append(current_point()) or 1.5,
                 [Benchmark(["M", "N"], "provider"), Benchmark(["size"], "provider")])
        assert m.fn(M=512, N=64, provider="torch", extra="not a label") == 1.5
        assert m.fn(size=3, provider="triton") == 1.5
        assert seen == [{"M": 512, "N": 64, "provider": "torch"},
                        {"provider": "triton", "size": 3}]
        assert current_point() is None
    finally:
        undo()


def test_point_is_popped_when_the_benchmark_raises(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    undo = autopoints.wrap_mark(Mark)
    try:
        def boom(**kw):
            raise ValueError("bad shape")

        m = Mark(boom, Benchmark(["M"], "provider"))
        try:
            m.fn(M=1, provider="x")
        except ValueError:
            pass
        assert current_point() is None
    finally:
        undo()


def test_environment_point(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.setenv("KSNAP_BENCHMARK_POINT", '{"shard": 3}')
    with benchmark_point(M=2):
        assert current_point() == {"M": 2, "shard": 3}
    monkeypatch.setenv("KSNAP_BENCHMARK_POINT", "nightly")
    assert current_point() == {"point": "nightly"}
