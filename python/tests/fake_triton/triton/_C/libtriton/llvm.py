"""``llvm.optimize_module(mod, level)``: runs the stand-in's LLVM middle end
on ``mod`` in place (backends/passes.py), as Triton's binding does."""

OPTIMIZE_O3 = 3


class Module:
    """An LLVM module: ``str()`` prints its IR, like Triton's binding."""

    def __init__(self, text, name):
        self.text, self.name = text, name

    def __str__(self):
        return self.text


def optimize_module(mod, level):
    from ...backends import passes

    mod.text = passes.optimize(mod.text, mod.name)
