"""What ``passviz run`` and ``bisect`` run a kernel on: ``--arg``, ``--grid``, ``--seed`` and
``--inputs``, or the kernel's signature's defaults when no argument is given."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from passviz.cli.common import CliError
from passviz.ir.terminal import one_line

if TYPE_CHECKING:
    from passviz.run.launch import Argument


def run_inputs(
    args: argparse.Namespace, from_signature: Callable[[], list[str]]
) -> tuple[list[Argument], tuple[int, ...]]:
    """The arguments and grid ``args`` ask for; ``from_signature`` gives the ``--arg`` specs made
    from the kernel's signature when neither ``--arg`` nor ``--inputs`` gives any. Sets
    ``args.spec_text``: what ``--record`` writes as the run records' spec, to run them again."""
    # passviz.run is imported where it is used: it loads xDSL's interpreters and
    # numpy, more than half a second that every other command would pay.
    from passviz.interpret.values import RunError
    from passviz.run.inputs import (
        InputsFile,
        InputSpecError,
        make_arguments,
        parse_arg,
        parse_grid,
        read_inputs_file,
    )

    try:
        saved = read_inputs_file(args.inputs) if args.inputs else InputsFile([], None, None)
        specs = [parse_arg(text) for text in args.arg or saved.args]
        if not specs:
            specs = [parse_arg(text) for text in from_signature()]
            spelled = " ".join(f"--arg {spec}" for spec in specs) or "none"
            print(one_line(f"inputs from the kernel's signature: {spelled}"))
        seed = args.seed if args.seed is not None else saved.seed or 0
        grid = parse_grid(args.grid or saved.grid or "1")
        args.spec_text = " ".join(
            [*(f"--arg {spec}" for spec in specs), f"--grid {','.join(map(str, grid))}", f"--seed {seed}"]
        )
        return make_arguments(specs, seed), grid
    except (InputSpecError, RunError) as exc:
        raise CliError(str(exc)) from None
