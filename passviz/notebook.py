"""passviz in notebooks: the Stepper, the extension's TraceWidget and static step graphs.

>>> from passviz.notebook import Stepper, TraceWidget, show_graph
>>> Stepper(trace)                 # controls, step list, IR diff, graph, details
>>> TraceWidget(trace, step=3)     # the passviz JupyterLab extension's viewer
>>> show_graph(trace, 3, "cfg")    # one step's control-flow graph, coloured by change
>>> side_by_side(a, b)             # two traces of one input side by side, stepping together
"""

from passviz.trace.query import StepFilter
from passviz.view.view import TraceView
from passviz.widget.display import GraphFigure, show_graph
from passviz.widget.sidebyside import SideBySide, side_by_side
from passviz.widget.stepper import Stepper
from passviz.widget.trace_widget import TraceWidget

__all__ = [
    "GraphFigure",
    "SideBySide",
    "StepFilter",
    "Stepper",
    "TraceView",
    "TraceWidget",
    "show_graph",
    "side_by_side",
]
