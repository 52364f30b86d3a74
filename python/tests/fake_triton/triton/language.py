"""Stand-in for triton.language: constexpr and dtype."""


class constexpr:
    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value}]"

    def __eq__(self, other):
        return isinstance(other, constexpr) and other.value == self.value

    def __hash__(self):
        return hash(("constexpr", self.value))


class dtype:
    NAMES = ("fp16", "bf16", "fp32", "fp64", "int8", "int16", "int32", "int64", "int1")

    def __init__(self, name):
        if name not in self.NAMES:
            raise ValueError(f"unknown dtype {name}")
        self.name = name

    def is_ptr(self):
        return False

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and str(other) == str(self)

    def __hash__(self):
        return hash(str(self))


class pointer_type(dtype):
    def __init__(self, element_ty):
        self.element_ty = element_ty
        self.name = f"pointer<{element_ty}>"

    def is_ptr(self):
        return True


float16 = dtype("fp16")
float32 = dtype("fp32")
int32 = dtype("int32")
