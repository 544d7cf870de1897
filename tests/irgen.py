"""Small IR generators for tests."""

from __future__ import annotations

import random


def arith_module(ops: int, seed: int = 0) -> str:
    """A function of about ``ops`` arith ops: folds, duplicates and dead ops included."""
    rng = random.Random(seed)
    lines = ["func.func @f(%a: i32, %b: i32, %c: i1) -> (i32, i32) {"]
    values = ["%a", "%b"]
    for i in range(ops):
        kind = rng.random()
        name = f"%v{i}"
        if kind < 0.15:
            lines.append(f"  {name} = arith.constant {rng.randint(0, 3)} : i32")
        elif kind < 0.6:
            op = rng.choice(["addi", "muli", "subi", "andi", "ori", "xori"])
            x, y = rng.choice(values[-8:]), rng.choice(values)
            lines.append(f"  {name} = arith.{op} {x}, {y} : i32")
        elif kind < 0.75:
            x, y = rng.choice(values), rng.choice(values)
            lines.append(f"  {name} = arith.select %c, {x}, {y} : i32")
        else:  # an exact duplicate of an earlier binary op, for CSE
            prior = [line for line in lines if "arith.addi" in line or "arith.muli" in line]
            if not prior:
                lines.append(f"  {name} = arith.addi %a, %b : i32")
            else:
                lines.append(f"  {name} = {rng.choice(prior).split(' = ', 1)[1]}")
        values.append(name)
    lines.append(f"  func.return {values[-1]}, {values[len(values) // 2]} : i32, i32")
    lines.append("}")
    return "\n".join(lines) + "\n"
