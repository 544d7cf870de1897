"""passviz in notebooks: the Stepper and static step graphs.

>>> from passviz.notebook import Stepper, show_graph
>>> Stepper(trace)                 # controls, step list, IR diff, graph, details
>>> show_graph(trace, 3, "cfg")    # one step's control-flow graph, coloured by change
"""

from passviz.graph.view import TraceView
from passviz.trace.query import StepFilter
from passviz.widget.display import GraphFigure, show_graph
from passviz.widget.stepper import Stepper

__all__ = ["GraphFigure", "StepFilter", "Stepper", "TraceView", "show_graph"]
