import os


class HookChain:
    def __init__(self):
        self.calls = []

    def add(self, f):
        if f not in self.calls:
            self.calls.append(f)

    def remove(self, f):
        if f in self.calls:
            self.calls.remove(f)

    def __call__(self, *a, **k):
        for c in list(self.calls):
            c(*a, **k)


class _Cache:
    @property
    def dir(self):
        return self.__dict__.get("_dir") or os.environ.get("TRITON_CACHE_DIR") or "/tmp/fake-triton"

    @dir.setter
    def dir(self, v):
        self.__dict__["_dir"] = v
        os.environ["TRITON_CACHE_DIR"] = v


class _Compilation:
    listener = None


class _Runtime:
    jit_post_compile_hook = None
    jit_cache_hook = None
    override_arch = None

    def __init__(self):
        self.launch_enter_hook = HookChain()
        self.launch_exit_hook = HookChain()


cache = _Cache()
compilation = _Compilation()
runtime = _Runtime()
