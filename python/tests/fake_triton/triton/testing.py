class Benchmark:
    def __init__(self, x_names, x_vals, line_arg, line_vals, plot_name="", args=None):
        self.x_names, self.x_vals = x_names, x_vals
        self.line_arg, self.line_vals = line_arg, line_vals
        self.plot_name, self.args = plot_name, args or {}


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def run(self, **kwargs):
        rows = []
        for b in (self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]):
            for x in b.x_vals:
                x = x if isinstance(x, (list, tuple)) else [x] * len(b.x_names)
                for y in b.line_vals:
                    rows.append(self.fn(**dict(zip(b.x_names, x)), **{b.line_arg: y}, **b.args))
        return rows


def perf_report(benchmarks):
    return lambda fn: Mark(fn, benchmarks)
