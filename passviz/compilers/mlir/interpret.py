"""``arith`` and ``math`` on scalars and tensors alike, with numpy; functions, calls and the
control flow xDSL's tables leave out.

xDSL's own ``ArithFunctions`` computes on Python numbers, one scalar at a
time; these take numpy arrays of any shape (scalars are 0-d arrays) and give
results of the op's result type: integers wrap at their width, signless
integers are viewed as unsigned by the ops that say so, ``bf16`` results are
rounded after every op (``values.as_type``).

``ControlFunctions`` runs ``func.call`` and ``func.return``, ``scf.for`` with an
induction variable of its type (it replaces xDSL's, so it is registered after
``ScfFunctions``), ``scf.execute_region``, ``cf.assert``, ``cf.switch``,
``ub.poison``, and the barrier and assumption ops that have nothing to do here.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith, cf, func, math, scf, ub
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    Successor,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from passviz.compilers.mlir.dialects import arith as pv_arith
from passviz.compilers.mlir.dialects import gpu, llvm
from passviz.compilers.mlir.dialects.linalg import BatchReduceMatmulOp, ContractOp
from passviz.compilers.mlir.dialects.linalg_named import NAMED_OPS, ElementwiseOp
from passviz.interpret.core import (
    calls_callee,
    does_nothing,
    kernel_state,
    returns_operands,
    runs_first_region,
)
from passviz.interpret.values import (
    Array,
    KernelAssertionError,
    Pointer,
    PointerTensor,
    RunError,
    UnsupportedOpError,
    as_type,
    bf16_bits,
    bf16_from_bits,
    int_width,
    is_bf16,
    make_pointer,
    pointer_parts,
    shape_of,
    storage_dtype,
    unsigned_dtype,
    zeros,
)

Method = Callable[[InterpreterFunctions, Interpreter, Any, PythonValues], PythonValues]
"""An implementation method, before ``@impl`` wraps it."""


def signed(value: Any, type_: Attribute) -> Array:
    """``value`` as signed integers of ``type_``'s width (``i1`` true is -1)."""
    if int_width(type_) == 1:
        return -np.asarray(value).astype(np.int8)
    return np.asarray(value).astype(storage_dtype(type_), copy=False)


def unsigned(value: Any, type_: Attribute) -> Array:
    """``value`` as unsigned integers of ``type_``'s width."""
    width = int_width(type_)
    if width == 1:
        return np.asarray(value).astype(np.bool_)
    return np.asarray(value).astype(storage_dtype(type_), copy=False).view(unsigned_dtype(width))


def _result(op: Operation, value: Any) -> PythonValues:
    return (as_type(value, op.results[0].type, op),)


def _elementwise(function: Callable[..., Any], view: str = "value") -> Method:
    """An implementation applying ``function`` to the operands, read as ``view``: ``value`` (as
    stored), ``signed`` or ``unsigned`` integers of the operands' type."""

    def run(
        self: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        type_ = op.operands[0].type
        if view == "signed":
            operands = [signed(a, type_) for a in args]
        elif view == "unsigned":
            operands = [unsigned(a, type_) for a in args]
        else:
            operands = [np.asarray(a) for a in args]
        return _result(op, function(*operands))

    return run


def _safe(b: Array) -> Array:
    """The divisor with zeros replaced by ones: division by zero is undefined, not a crash."""
    return np.where(b == 0, 1, b)


def _trunc_div(a: Array, b: Array) -> Array:
    """Integer division rounding toward zero (C's, LLVM's ``sdiv``)."""
    safe = _safe(b)
    quotient = np.abs(a) // np.abs(safe)
    return np.where((a < 0) != (safe < 0), -quotient, quotient)


def _ceil_div(a: Array, b: Array) -> Array:
    return -(-a // _safe(b))


def _floor_div(a: Array, b: Array) -> Array:
    return a // _safe(b)


def _signed_rem(a: Array, b: Array) -> Array:
    return np.fmod(a, _safe(b))


def _unsigned_rem(a: Array, b: Array) -> Array:
    return a % _safe(b)


def fma(a: Array, b: Array, c: Array) -> Array:
    """a * b + c with one rounding (computed in f64)."""
    return a.astype(np.float64) * b + c


def reciprocal(x: Array) -> Array:
    """1 / x."""
    return 1 / x


def _shift_left(a: Array, b: Array) -> Array:
    return np.left_shift(a, b.astype(a.dtype))


def _shift_right(a: Array, b: Array) -> Array:
    return np.right_shift(a, b.astype(a.dtype))


def _max_num(a: Array, b: Array) -> Array:
    return np.fmax(a, b)


def _min_num(a: Array, b: Array) -> Array:
    return np.fmin(a, b)


_CMPI: dict[int, tuple[str, Callable[[Array, Array], Array]]] = {
    0: ("signed", np.equal),
    1: ("signed", np.not_equal),
    2: ("signed", np.less),
    3: ("signed", np.less_equal),
    4: ("signed", np.greater),
    5: ("signed", np.greater_equal),
    6: ("unsigned", np.less),
    7: ("unsigned", np.less_equal),
    8: ("unsigned", np.greater),
    9: ("unsigned", np.greater_equal),
}
"""``arith.cmpi``'s predicates: how to read the operands and the comparison."""


_CMPF: dict[int, Callable[[Array, Array], Array]] = {
    1: np.equal,
    2: np.greater,
    3: np.greater_equal,
    4: np.less,
    5: np.less_equal,
    6: np.not_equal,
}
"""``arith.cmpf``'s ordered predicates (oeq .. one); 8..13 are their unordered forms."""


def _cmpf(predicate: int, a: Array, b: Array) -> Array:
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == 0:
        return np.zeros(np.broadcast(a, b).shape, dtype=bool)
    if predicate == 15:
        return np.ones(np.broadcast(a, b).shape, dtype=bool)
    if predicate == 7:
        return ~unordered
    if predicate == 14:
        return unordered
    if 1 <= predicate <= 6:
        return _CMPF[predicate](a, b) & ~unordered
    # 8..13: ueq, ugt, uge, ult, ule, une: the ordered comparison, or unordered.
    return _CMPF[predicate - 7](a, b) | unordered


def constant_value(op: Operation, value: Attribute, type_: Attribute) -> Any:
    """The array an ``arith.constant``'s attribute stands for."""
    dtype = storage_dtype(type_, op)
    if isinstance(value, DenseIntOrFPElementsAttr):
        data = np.asarray(value.get_values())
        if dtype == np.bool_:
            data = data != 0
        return as_type(data.reshape(shape_of(type_)) if data.size != 1 else data.reshape(()), type_, op)
    if isinstance(value, IntegerAttr | FloatAttr):
        data = np.asarray(value.value.data)
        if dtype == np.bool_:
            data = data != 0
        return as_type(data, type_, op)
    raise UnsupportedOpError(op, f"constant {value}")


def _cast(function: Callable[[Operation, Array], Array]) -> Method:
    def run(
        self: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        return _result(op, function(op, np.asarray(args[0])))

    return run


def _extsi(op: Operation, x: Array) -> Array:
    """The operand read as signed, in the result's type (``extsi``, ``index_cast``)."""
    return signed(x, op.operands[0].type).astype(storage_dtype(op.results[0].type))


def _extui(op: Operation, x: Array) -> Array:
    """The operand read as unsigned, in the result's type (``extui``, ``index_castui``)."""
    return unsigned(x, op.operands[0].type).astype(storage_dtype(op.results[0].type))


def _trunci(op: Operation, x: Array) -> Array:
    if int_width(op.results[0].type) == 1:
        return (x & 1) != 0
    return x.astype(storage_dtype(op.results[0].type))


def _uitofp(op: Operation, x: Array) -> Array:
    return unsigned(x, op.operands[0].type).astype(np.float64)


def _fptoui(op: Operation, x: Array) -> Array:
    width = int_width(op.results[0].type)
    return np.trunc(x).astype(unsigned_dtype(width)).view(storage_dtype(op.results[0].type))


def _float_cast(op: Operation, x: Array) -> Array:
    return x.astype(np.float32) if is_bf16(op.results[0].type) else x


def bitcast(op: Operation, x: Array) -> Array:
    """The bits of ``x`` (of the operand's type) read as the result's type, bf16 included."""
    source, target = op.operands[0].type, op.results[0].type
    if is_bf16(source):
        x = bf16_bits(x)
    if is_bf16(target):
        return bf16_from_bits(np.asarray(x).view(np.uint16))
    dtype = storage_dtype(target)
    if np.asarray(x).dtype.itemsize != dtype.itemsize:
        raise RunError(f"cannot bitcast {source} to {target}", op)
    return np.array(x, order="C").view(dtype)


@register_impls
class ArithFunctions(InterpreterFunctions):
    """``arith`` on numpy arrays."""

    @impl(arith.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues
    ) -> PythonValues:
        state = kernel_state(interpreter)
        return (state.constant(op, lambda: constant_value(op, op.value, op.result.type)),)

    run_addi = impl(arith.AddiOp)(_elementwise(np.add, "signed"))
    run_subi = impl(arith.SubiOp)(_elementwise(np.subtract, "signed"))
    run_muli = impl(arith.MuliOp)(_elementwise(np.multiply, "signed"))
    run_divsi = impl(arith.DivSIOp)(_elementwise(_trunc_div, "signed"))
    run_divui = impl(arith.DivUIOp)(_elementwise(_floor_div, "unsigned"))
    run_ceildivsi = impl(arith.CeilDivSIOp)(_elementwise(_ceil_div, "signed"))
    run_ceildivui = impl(arith.CeilDivUIOp)(_elementwise(_ceil_div, "unsigned"))
    run_floordivsi = impl(arith.FloorDivSIOp)(_elementwise(_floor_div, "signed"))
    run_remsi = impl(arith.RemSIOp)(_elementwise(_signed_rem, "signed"))
    run_remui = impl(arith.RemUIOp)(_elementwise(_unsigned_rem, "unsigned"))
    run_andi = impl(arith.AndIOp)(_elementwise(np.bitwise_and))
    run_ori = impl(arith.OrIOp)(_elementwise(np.bitwise_or))
    run_xori = impl(arith.XOrIOp)(_elementwise(np.bitwise_xor))
    run_shli = impl(arith.ShLIOp)(_elementwise(_shift_left, "unsigned"))
    run_shrsi = impl(arith.ShRSIOp)(_elementwise(_shift_right, "signed"))
    run_shrui = impl(arith.ShRUIOp)(_elementwise(_shift_right, "unsigned"))
    run_minsi = impl(arith.MinSIOp)(_elementwise(np.minimum, "signed"))
    run_maxsi = impl(arith.MaxSIOp)(_elementwise(np.maximum, "signed"))
    run_minui = impl(arith.MinUIOp)(_elementwise(np.minimum, "unsigned"))
    run_maxui = impl(arith.MaxUIOp)(_elementwise(np.maximum, "unsigned"))

    run_addf = impl(arith.AddfOp)(_elementwise(np.add))
    run_subf = impl(arith.SubfOp)(_elementwise(np.subtract))
    run_mulf = impl(arith.MulfOp)(_elementwise(np.multiply))
    run_divf = impl(arith.DivfOp)(_elementwise(np.divide))
    run_remf = impl(pv_arith.RemFOp)(_elementwise(np.fmod))
    run_negf = impl(arith.NegfOp)(_elementwise(np.negative))
    run_maximumf = impl(arith.MaximumfOp)(_elementwise(np.maximum))
    run_minimumf = impl(arith.MinimumfOp)(_elementwise(np.minimum))
    run_maxnumf = impl(arith.MaxnumfOp)(_elementwise(_max_num))
    run_minnumf = impl(arith.MinnumfOp)(_elementwise(_min_num))

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: PythonValues) -> PythonValues:
        view, compare = _CMPI[op.predicate.value.data]
        read = signed if view == "signed" else unsigned
        type_ = op.lhs.type
        return _result(op, compare(read(args[0], type_), read(args[1], type_)))

    @impl(arith.CmpfOp)
    def run_cmpf(self, interpreter: Interpreter, op: arith.CmpfOp, args: PythonValues) -> PythonValues:
        return _result(op, _cmpf(op.predicate.value.data, np.asarray(args[0]), np.asarray(args[1])))

    @impl(arith.SelectOp)
    def run_select(self, interpreter: Interpreter, op: arith.SelectOp, args: PythonValues) -> PythonValues:
        cond, lhs, rhs = args
        if isinstance(lhs, Pointer | PointerTensor):
            buffer, left = pointer_parts(lhs, op)
            other, right = pointer_parts(rhs, op)
            if buffer != other:
                raise UnsupportedOpError(op, "a select between pointers into different buffers")
            return (make_pointer(buffer, np.where(np.asarray(cond), left, right)),)
        return _result(op, np.where(np.asarray(cond), np.asarray(lhs), np.asarray(rhs)))

    run_extsi = impl(arith.ExtSIOp)(_cast(_extsi))
    run_extui = impl(arith.ExtUIOp)(_cast(_extui))
    run_trunci = impl(arith.TruncIOp)(_cast(_trunci))
    run_sitofp = impl(arith.SIToFPOp)(_cast(lambda op, x: signed(x, op.operands[0].type).astype(np.float64)))
    run_uitofp = impl(arith.UIToFPOp)(_cast(_uitofp))
    run_fptosi = impl(arith.FPToSIOp)(_cast(lambda op, x: np.trunc(x)))
    run_fptoui = impl(arith.FPToUIOp)(_cast(_fptoui))
    run_extf = impl(arith.ExtFOp)(_cast(_float_cast))
    run_truncf = impl(arith.TruncFOp)(_cast(_float_cast))
    run_bitcast = impl(arith.BitcastOp)(_cast(bitcast))
    run_index_cast = impl(arith.IndexCastOp)(_cast(_extsi))
    run_index_castui = impl(pv_arith.IndexCastUIOp)(_cast(_extui))

    @impl(arith.AddUIExtendedOp)
    def run_addui_extended(
        self, interpreter: Interpreter, op: arith.AddUIExtendedOp, args: PythonValues
    ) -> PythonValues:
        type_ = op.operands[0].type
        lhs, rhs = unsigned(args[0], type_), unsigned(args[1], type_)
        total = lhs + rhs
        return (
            as_type(total.view(storage_dtype(type_)), type_, op),
            as_type(total < lhs, op.results[1].type, op),
        )

    @impl(arith.MulUIExtendedOp)
    def run_mului_extended(
        self, interpreter: Interpreter, op: arith.MulUIExtendedOp, args: PythonValues
    ) -> PythonValues:
        return wide_product(op, [unsigned(a, op.operands[0].type) for a in args])

    @impl(arith.MulSIExtendedOp)
    def run_mulsi_extended(
        self, interpreter: Interpreter, op: arith.MulSIExtendedOp, args: PythonValues
    ) -> PythonValues:
        return wide_product(op, [signed(a, op.operands[0].type) for a in args])


def wide_product(op: Operation, operands: list[Array]) -> PythonValues:
    """The low and high halves of the double-width product of two integer arrays (read signed or
    unsigned), in the type of ``op``'s first result: numpy's 64-bit product when it is exact (up to
    32 bits), else Python ints."""
    width = int_width(op.operands[0].type)
    lhs, rhs = operands
    mask = (1 << width) - 1
    if width <= 32:
        wide = np.int64 if lhs.dtype.kind == "i" else np.uint64
        products = lhs.astype(wide) * rhs.astype(wide)
        low = (products & mask).astype(unsigned_dtype(width))
        high = ((products >> width) & mask).astype(unsigned_dtype(width))
    else:
        pairs = zip(lhs.ravel().tolist(), rhs.ravel().tolist(), strict=True)
        products = [int(a) * int(b) for a, b in pairs]
        low = np.array([p & mask for p in products], dtype=unsigned_dtype(width)).reshape(lhs.shape)
        high = np.array([(p >> width) & mask for p in products], dtype=unsigned_dtype(width)).reshape(
            lhs.shape
        )
    type_ = op.results[0].type
    dtype = storage_dtype(type_)
    return (as_type(low.view(dtype), type_, op), as_type(high.view(dtype), type_, op))


def _bit_count(op: Operation, x: Array, kind: str) -> Array:
    """Population count, leading or trailing zeros of each integer, at its type's width."""
    width = int_width(op.operands[0].type)
    values = unsigned(x, op.operands[0].type).ravel().tolist()
    counts: list[int] = []
    for value in values:
        if kind == "ctpop":
            counts.append(bin(value).count("1"))
        elif kind == "ctlz":
            counts.append(width - value.bit_length())
        else:
            counts.append(width if value == 0 else (value & -value).bit_length() - 1)
    return np.array(counts, dtype=np.int64).reshape(np.shape(x))


def _round_half_away(x: Array) -> Array:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_erf = np.vectorize(pymath.erf, otypes=[np.float64])


def erf(x: Array) -> Array:
    """The error function, elementwise."""
    return _erf(x).astype(np.asarray(x).dtype)


UNARY: dict[str, Callable[[Array], Array]] = {
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: reciprocal(np.sqrt(x)),
    "cbrt": np.cbrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "abs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": _round_half_away,
    "roundeven": np.rint,
    "rint": np.rint,
    "erf": erf,
}
"""Float functions of one argument, by their ``math`` (and libdevice) names."""

BINARY: dict[str, Callable[[Array, Array], Array]] = {
    "atan2": np.arctan2,
    "pow": np.power,
    "copysign": np.copysign,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "fmod": np.fmod,
    "hypot": np.hypot,
}
"""Float functions of two arguments."""


def _unary(name: str) -> Method:
    return _elementwise(UNARY[name])


@register_impls
class MathFunctions(InterpreterFunctions):
    """``math`` on numpy arrays."""

    run_exp = impl(math.ExpOp)(_unary("exp"))
    run_exp2 = impl(math.Exp2Op)(_unary("exp2"))
    run_expm1 = impl(math.ExpM1Op)(_unary("expm1"))
    run_log = impl(math.LogOp)(_unary("log"))
    run_log2 = impl(math.Log2Op)(_unary("log2"))
    run_log10 = impl(math.Log10Op)(_unary("log10"))
    run_log1p = impl(math.Log1pOp)(_unary("log1p"))
    run_sqrt = impl(math.SqrtOp)(_unary("sqrt"))
    run_rsqrt = impl(math.RsqrtOp)(_unary("rsqrt"))
    run_cbrt = impl(math.CbrtOp)(_unary("cbrt"))
    run_sin = impl(math.SinOp)(_unary("sin"))
    run_cos = impl(math.CosOp)(_unary("cos"))
    run_tan = impl(math.TanOp)(_unary("tan"))
    run_asin = impl(math.AsinOp)(_unary("asin"))
    run_acos = impl(math.AcosOp)(_unary("acos"))
    run_atan = impl(math.AtanOp)(_unary("atan"))
    run_sinh = impl(math.SinhOp)(_unary("sinh"))
    run_cosh = impl(math.CoshOp)(_unary("cosh"))
    run_tanh = impl(math.TanhOp)(_unary("tanh"))
    run_asinh = impl(math.AsinhOp)(_unary("asinh"))
    run_acosh = impl(math.AcoshOp)(_unary("acosh"))
    run_atanh = impl(math.AtanhOp)(_unary("atanh"))
    run_absf = impl(math.AbsFOp)(_unary("abs"))
    run_absi = impl(math.AbsIOp)(_elementwise(np.abs, "signed"))
    run_floor = impl(math.FloorOp)(_unary("floor"))
    run_ceil = impl(math.CeilOp)(_unary("ceil"))
    run_trunc = impl(math.TruncOp)(_unary("trunc"))
    run_round = impl(math.RoundOp)(_unary("round"))
    run_roundeven = impl(math.RoundEvenOp)(_unary("roundeven"))
    run_erf = impl(math.ErfOp)(_unary("erf"))
    run_atan2 = impl(math.Atan2Op)(_elementwise(np.arctan2))
    run_powf = impl(math.PowFOp)(_elementwise(np.power))
    run_copysign = impl(math.CopySignOp)(_elementwise(np.copysign))
    run_fma = impl(math.FmaOp)(_elementwise(fma))
    run_ctpop = impl(math.CtPopOp)(_cast(lambda op, x: _bit_count(op, x, "ctpop")))
    run_ctlz = impl(math.CountLeadingZerosOp)(_cast(lambda op, x: _bit_count(op, x, "ctlz")))
    run_cttz = impl(math.CountTrailingZerosOp)(_cast(lambda op, x: _bit_count(op, x, "cttz")))

    @impl(math.FPowIOp)
    def run_fpowi(self, interpreter: Interpreter, op: math.FPowIOp, args: PythonValues) -> PythonValues:
        base, exponent = (np.asarray(a) for a in args)
        return _result(op, np.power(base.astype(np.float64), exponent.astype(np.float64)))

    @impl(math.IPowIOp)
    def run_ipowi(self, interpreter: Interpreter, op: math.IPowIOp, args: PythonValues) -> PythonValues:
        type_ = op.operands[0].type
        base, exponent = signed(args[0], type_), signed(args[1], type_)
        # Negative exponents: 1 ** e is 1, (-1) ** e is +-1, anything else truncates to 0.
        safe = np.where(exponent < 0, 0, exponent)
        power = np.power(base, safe)
        negative = np.where(np.abs(base) == 1, np.where(exponent % 2 == 0, 1, base), 0)
        return _result(op, np.where(exponent < 0, negative, power))


@register_impls
class ControlFunctions(InterpreterFunctions):
    """Functions, calls, returns, ``scf.for`` with typed induction variables, asserts, switches,
    poison, and the barrier and assumption ops that do nothing here."""

    run_func_call = calls_callee(func.CallOp)
    run_func_return = returns_operands(func.ReturnOp)

    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lower, upper, step, *carried = args
        index_type = op.body.block.args[0].type
        values = tuple(carried)
        for index in range(int(lower), int(upper), int(step)):
            induction = as_type(index, index_type, op)
            values = interpreter.run_ssacfg_region(op.body, (induction, *values), "scf.for")
        return values

    run_execute_region = runs_first_region(scf.ExecuteRegionOp)
    # Programs run one after another, each in one thread: a barrier has nothing to wait for.
    run_gpu_barrier = does_nothing(gpu.BarrierOp)
    # What the kernel promises; a broken promise is undefined behaviour on the GPU, not checked here.
    run_assume = does_nothing(llvm.AssumeOp)

    @impl(cf.AssertOp)
    def run_cf_assert(self, interpreter: Interpreter, op: cf.AssertOp, args: PythonValues) -> PythonValues:
        if not np.all(np.asarray(args[0])):
            state = kernel_state(interpreter)
            raise KernelAssertionError(f"assertion failed in program {state.program_id}: {op.msg.data}", op)
        return ()

    @impl_terminator(cf.SwitchOp)
    def run_switch(
        self, interpreter: Interpreter, op: cf.SwitchOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        flag = int(np.asarray(args[0]))
        cases = list(op.case_values.get_values()) if op.case_values is not None else []
        if flag in cases:
            index = cases.index(flag)
            sizes = list(op.case_operand_segments.get_values())
            start = sum(sizes[:index])
            operands = op.case_operands[start : start + sizes[index]]
            return Successor(op.case_blocks[index], interpreter.get_values(operands)), ()
        return Successor(op.default_block, interpreter.get_values(op.default_operands)), ()

    @impl(ub.PoisonOp)
    def run_poison(self, interpreter: Interpreter, op: ub.PoisonOp, args: PythonValues) -> PythonValues:
        return (zeros(op.result.type, op),)


# -- linalg's named ops ---------------------------------------------------------------


def _run_as_generic(
    functions: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
) -> PythonValues:
    """A named linalg op, run by whatever runs ``linalg.generic`` (a family's table): a named op
    has the structured op's operands, indexing maps, iterator types and body, which is all a
    generic's implementation reads."""
    found = kernel_state(interpreter).implementations.get("linalg.generic")
    if found is None:
        raise UnsupportedOpError(op)
    generic_functions, implementation = found
    return implementation(generic_functions, interpreter, op, args).values


def _named_linalg_functions() -> type[InterpreterFunctions]:
    namespace: dict[str, object] = {
        f"run_{name.removeprefix('linalg.')}": impl(op_type)(_run_as_generic)
        for name, op_type in (
            *NAMED_OPS.items(),
            *((op.name, op) for op in (ElementwiseOp, ContractOp, BatchReduceMatmulOp)),
        )
    }
    namespace["__doc__"] = (
        "linalg's named ops of ``linalg_named.NAMED``, each run as ``linalg.generic`` runs."
    )
    return register_impls(type("LinalgNamedFunctions", (InterpreterFunctions,), namespace))


LinalgNamedFunctions = _named_linalg_functions()
"""The interpreter table of linalg's OpDSL named ops (pooling, convolutions, contractions, copy),
``linalg.elementwise``, ``linalg.contract`` and ``linalg.batch_reduce_matmul``."""
