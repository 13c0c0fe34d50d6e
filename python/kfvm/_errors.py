"""kfvm's exceptions. They are Python classes of the package, not of the extension
module, so that they exist before a build's module is loaded (kfvm/_extension.py); the
extension raises kfvm.Error for every error of kfvm's C++ library."""


class Error(ValueError):
    """An error of kfvm: bad input (the message names the value), a failed write, a
    solver asked for what it cannot do."""


class ConvergenceError(Error):
    """A solve, sweep or step that did not converge; .report is its kfvm.StepReport."""

    def __init__(self, report):
        super().__init__("%s did not converge: %s" % (report.solver, report.reason))
        self.report = report
