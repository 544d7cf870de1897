"""Exports of the viewer's graph (``passviz.view.graph``): node-link JSON, DOT, offline pyvis HTML.

The node-link shape is described by ``graph.schema.json`` beside this file:

.. code-block:: text

    {"directed": true, "multigraph": true,
     "graph": {"kind": "all" | "dataflow" | "cfg" | "nesting", "step": int, "note": str | null},
     "nodes": [{"id", "kind", "parent", "label", "text", "status", "x"?, "y"?}],
     "edges": [{"source", "target", "key", "kind", "label", "status"}]}

DOT and pyvis draw each node's ``parent`` (the box the viewer draws it in)
as a thin grey link from the parent, without an arrow.
"""

from __future__ import annotations

import html
import json
import re
from importlib.resources import files
from typing import Any

import networkx as nx
from pyvis.network import Network  # pyright: ignore[reportMissingTypeStubs]

from passviz.view.graph import IRGraph
from passviz.view.layout import Position
from passviz.view.page_policy import with_policy

STATUS_COLORS: dict[str, str] = {
    "added": "#dafbe1",
    "modified": "#fff8c5",
    "erased": "#ffebe9",
    "unchanged": "#f6f8fa",
}
"""Fill colour of a node by diff status: the viewer's (``extension/src/view/graphview.ts``)."""

STATUS_BORDERS: dict[str, str] = {
    "added": "#1a7f37",
    "modified": "#bf8700",
    "erased": "#cf222e",
    "unchanged": "#8c959f",
}
"""Border colour of a node, and colour of an edge, by diff status: the viewer's."""

_SHAPES = {"op": "box", "box": "box", "region": "hexagon", "block": "box", "arg": "ellipse"}

PARENT_LINK_COLOR = "#c8ccd1"
"""The colour of the link from a box, region or block to what it holds."""

_EDGE_COLOR = "#8899aa"
"""The colour of an unchanged edge."""


def _parent_links(graph: IRGraph) -> list[tuple[str, str, str]]:
    """(parent, node, node's status) for each node whose parent is in ``graph``."""
    return [
        (str(attrs["parent"]), node, str(attrs.get("status", "unchanged")))
        for node, attrs in graph.nodes(data=True)
        if attrs.get("parent") is not None and attrs["parent"] in graph
    ]


def graph_schema() -> dict[str, Any]:
    """The JSON Schema of :func:`to_node_link`'s output."""
    text = files("passviz.view").joinpath("graph.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def to_node_link(
    graph: IRGraph,
    positions: dict[str, Position] | None = None,
    *,
    step: int | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The graph as node-link data (JSON-ready), with positions if given."""
    data: dict[str, Any] = nx.node_link_data(graph, edges="edges")
    data["graph"] = {**data["graph"], "step": step, "note": note}
    for node in data["nodes"]:
        node.setdefault("status", "unchanged")
        if positions is not None and node["id"] in positions:
            node["x"], node["y"] = positions[node["id"]]
    for edge in data["edges"]:
        edge.setdefault("status", "unchanged")
    return data


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string (networkx refuses unquoted text holding ':')."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + '"'


def to_dot(graph: IRGraph) -> str:
    """The graph in Graphviz DOT, coloured by status (erased parts dashed), parents linked in grey."""
    out = IRGraph()
    out.graph["graph"] = {"rankdir": "TB"}
    out.graph["node"] = {"fontname": "monospace", "style": "filled"}
    for node, attrs in graph.nodes(data=True):
        status = str(attrs.get("status", "unchanged"))
        out.add_node(
            node,
            label=_dot_quote(str(attrs.get("label", node))),
            tooltip=_dot_quote(str(attrs.get("text", ""))),
            shape={"arg": "ellipse", "region": "hexagon"}.get(str(attrs.get("kind")), "box"),
            fillcolor=_dot_quote(STATUS_COLORS[status]),
            color=_dot_quote(STATUS_BORDERS[status]),
            style=_dot_quote("filled,dashed" if status == "erased" else "filled"),
        )
    for source, target, key, attrs in graph.edges(keys=True, data=True):
        status = str(attrs.get("status", "unchanged"))
        out.add_edge(
            source,
            target,
            key=key,
            label=_dot_quote(str(attrs.get("label", ""))),
            color=_dot_quote(STATUS_BORDERS[status] if status != "unchanged" else _EDGE_COLOR),
            style="dashed" if status == "erased" else "solid",
        )
    for parent, node, _ in _parent_links(graph):
        out.add_edge(parent, node, key="parent", color=_dot_quote(PARENT_LINK_COLOR), arrowhead="none")
    return nx.nx_pydot.to_pydot(out).to_string()


def _node_options(node: str, attrs: dict[str, Any], position: Position | None) -> dict[str, Any]:
    status = str(attrs.get("status", "unchanged"))
    options: dict[str, Any] = {
        "label": str(attrs.get("label", node)),
        "title": f"{node}  [{status}]\n{attrs.get('text', '')}",
        "shape": _SHAPES.get(str(attrs.get("kind")), "box"),
        "color": {
            "background": STATUS_COLORS[status],
            "border": STATUS_BORDERS[status],
            "highlight": {"background": "#ffe66d", "border": "#333333"},
        },
        "borderWidth": 1 if status == "unchanged" else 3,
        "font": {"color": "#1f2328"},
        "status": status,
    }
    if status == "erased":
        options["shapeProperties"] = {"borderDashes": [5, 4]}
        options["opacity"] = 0.55
    if position is not None:
        options["x"], options["y"] = position
        options["physics"] = False
    return options


def to_pyvis(graph: IRGraph, positions: dict[str, Position] | None = None, height: str = "520px") -> Network:
    """A pyvis network of the graph: coloured by status, parents linked in grey, resources in line."""
    net = Network(height=height, width="100%", directed=True, cdn_resources="in_line")
    for node, attrs in graph.nodes(data=True):
        position = positions.get(node) if positions is not None else None
        net.add_node(node, **_node_options(node, attrs, position))  # pyright: ignore[reportUnknownMemberType]
    for source, target, key, attrs in graph.edges(keys=True, data=True):
        status = str(attrs.get("status", "unchanged"))
        net.add_edge(  # pyright: ignore[reportUnknownMemberType]
            source,
            target,
            id=f"{source}->{target}:{key}",
            title=f"{attrs.get('kind', '')}: {attrs.get('label', '')}",
            color=STATUS_BORDERS[status] if status != "unchanged" else _EDGE_COLOR,
            dashes=status == "erased",
            width=1 if status == "unchanged" else 2.5,
            status=status,
        )
    for parent, node, status in _parent_links(graph):
        net.add_edge(  # pyright: ignore[reportUnknownMemberType]
            parent,
            node,
            id=f"{parent}->{node}:parent",
            color=PARENT_LINK_COLOR,
            arrows={"to": {"enabled": False}},
            dashes=status == "erased",
            width=1,
            status=status,
            kind="parent",
        )
    net.set_options(json.dumps(_VIS_OPTIONS))  # pyright: ignore[reportUnknownMemberType]
    return net


_VIS_OPTIONS: dict[str, Any] = {
    "physics": {"enabled": False},
    "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
    "nodes": {"font": {"face": "monospace", "size": 13}, "margin": 8},
    "edges": {
        "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}},
        "smooth": {"enabled": True, "type": "cubicBezier", "forceDirection": "vertical", "roundness": 0.4},
        "font": {"face": "monospace", "size": 11, "align": "middle"},
    },
}

_EXTERNAL_TAG = re.compile(
    r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>"
    r"|<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>",
    re.IGNORECASE | re.DOTALL,
)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def strip_external(page: str) -> str:
    """Remove every ``<link href>`` and ``<script src>`` that points off the page (CDN bootstrap)."""
    return _EXTERNAL_TAG.sub("", _COMMENT.sub("", page))


def legend_html(note: str | None = None) -> str:
    """The colour legend, and the focus note if the graph was cut down."""
    chips = "".join(
        f'<span class="pv-chip"><span class="pv-swatch pv-{status}" '
        f'style="background:{color};border-color:{STATUS_BORDERS[status]}"></span>{status}</span>'
        for status, color in STATUS_COLORS.items()
    )
    note_html = f'<div class="pv-note">{html.escape(note)}</div>' if note else ""
    return f'<div class="pv-legend">{chips}</div>{note_html}'


LEGEND_CSS = """
.pv-legend { font: 12px sans-serif; padding: 4px 6px; display: flex; gap: 12px; }
.pv-chip { display: inline-flex; align-items: center; gap: 4px; }
.pv-swatch { display: inline-block; width: 14px; height: 14px; border: 2px solid; border-radius: 3px; }
.pv-swatch.pv-erased { border-style: dashed; opacity: .6; }
.pv-note { font: 12px sans-serif; padding: 2px 6px; color: #8a5a00; }
"""


ViewBox = tuple[float, float, float, float]
"""``(min_x, min_y, max_x, max_y)`` of the area a page should show."""


def view_box(positions: dict[str, Position], margin: float = 80.0) -> ViewBox:
    """The box around ``positions``, with a margin for node sizes."""
    if not positions:
        return (-margin, -margin, margin, margin)
    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


# Shows the given box, not the drawn nodes' own bounds: with a box that only
# grows across steps, a node that stays put also stays put on screen.
_VIEW_SCRIPT = """<script>
(function () {
  if (typeof network === "undefined") { return; }
  var box = %s;
  function show() {
    var el = document.getElementById("mynetwork");
    var w = el.clientWidth || 800, h = el.clientHeight || 500;
    // Fit the box, but never below the zoom at which labels stay legible (12 px): pan for the rest.
    var scale = Math.max(Math.min(w / (box[2] - box[0]), h / (box[3] - box[1]), 1.4), 0.95);
    var center = {x: (box[0] + box[2]) / 2, y: (box[1] + box[3]) / 2};
    network.moveTo({position: center, scale: scale, animation: false});
  }
  show();
  window.addEventListener("resize", show);
})();
</script>"""


def offline_html(net: Network, note: str | None = None, box: ViewBox | None = None) -> str:
    """The network as one self-contained page: vis-network in line, no external asset, a legend.

    Its policy (``page_policy``) lets only the page's own scripts run.

    ``box`` is the area to show; by default, the network's own nodes.
    """
    page: str = net.generate_html(notebook=False)  # pyright: ignore[reportUnknownMemberType]
    page = strip_external(page)
    header = f"<style>{LEGEND_CSS}</style>"
    page = page.replace("</head>", header + "</head>", 1)
    page = re.sub(r"<body>", lambda _: "<body>" + legend_html(note), page, count=1)
    if box is None:
        box = view_box({str(n["id"]): (float(n.get("x", 0)), float(n.get("y", 0))) for n in net.nodes})  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType, reportUnknownVariableType]
    script = _VIEW_SCRIPT % json.dumps([round(v, 1) for v in box])
    return with_policy(page.replace("</body>", script + "</body>", 1))
