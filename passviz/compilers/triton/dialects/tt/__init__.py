"""Triton's ``tt`` dialect, with the custom assembly syntax printed by Triton 3.6.

The package is split by concept, so that more ``tt`` ops can be added next to
their kin; each module imports only the ones before it:

- ``types``: enums stored as ``i32`` integer attributes (cache modifier, ...),
  the types ``!tt.ptr`` and ``!tt.tensordesc`` and the attribute
  ``#tt.cache_policy``, type constraints and type helpers;
- ``traits``: memory resources and effects, MLIR's and Triton's verifier
  traits and folding hooks;
- ``syntax``: the parse/print helpers shared by the Triton op syntax;
- ``control``: ``tt.func``, ``tt.call``, ``tt.return``; ``tt.get_program_id``,
  ``tt.get_num_programs``, ``tt.make_range``; ``tt.print``, ``tt.assert``;
- ``memory``: ``tt.load``, ``tt.store``, atomics and tensor descriptors;
- ``pointer``: ``tt.addptr``, ``tt.advance``, ``tt.make_tensor_ptr``, casts;
- ``tensor``: shape ops, ``tt.splat``, ``tt.broadcast``, ``tt.expand_dims``, ...;
- ``elementwise``: elementwise and math ops, ``tt.fp_to_fp``, ``tt.clampf``, ...;
- ``dot``: ``tt.dot`` and ``tt.dot_scaled``;
- ``region``: ops with a combine region, ``tt.reduce``, ``tt.scan``,
  ``tt.map_elementwise``;

and this module, the ``TT`` dialect object, which names the public API of all
of them (``__all__``); the other names of the modules are the package's own.

Printing and parsing follow MLIR's generated printers and parsers, as
``syntax`` says (attr-dicts sorted by name, properties at their default left
out, types named by class stripped of their dialect prefix). ``tt.reduce``,
``tt.scan`` and ``tt.map_elementwise`` have no custom syntax and print in
generic form.

Folders (xDSL's ``HasFolder``, through ``HasFolderInterface``) are those of
Triton's ``Ops.cpp``; the canonicalization patterns of the ops that have
``hasCanonicalizer``/``hasCanonicalizeMethod`` in ``TritonOps.td`` live in
``passviz.compilers.triton.canonicalization``, which imports the ops: the triton family
attaches them to the dialect (its canonicalization interface), not to the ops.

Reference: ``include/triton/Dialect/Triton/IR/{TritonOps,TritonTypes,
TritonAttrDefs,TritonInterfaces}.td`` and ``lib/Dialect/Triton/IR/{Ops,
Traits,OpInterfaces}.cpp`` in triton-lang/triton at the 3.6 branch point
(``004d7f5f5``; its ``tt`` dialect is the one of the installed 3.6.0, which
still has the older descriptor verifiers). One check is stricter than 3.6:
a ``tt.reduce``/``tt.scan`` axis must be in range (Triton added that check
after 3.6), as inferring the result type needs it.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from passviz.compilers.triton.dialects.tt.control import (
    AssertOp,
    CallOp,
    FuncOp,
    GetNumProgramsOp,
    GetProgramIdOp,
    MakeRangeOp,
    PrintOp,
    ReturnOp,
)
from passviz.compilers.triton.dialects.tt.dot import DotOp, DotScaledOp
from passviz.compilers.triton.dialects.tt.elementwise import (
    ClampFOp,
    ElementwiseInlineAsmOp,
    ExternElementwiseOp,
    FpToFpOp,
    HistogramOp,
    MulhiUIOp,
    PreciseDivFOp,
    PreciseSqrtOp,
)
from passviz.compilers.triton.dialects.tt.memory import (
    AtomicCASOp,
    AtomicRMWOp,
    DescriptorGatherOp,
    DescriptorLoadOp,
    DescriptorReduceOp,
    DescriptorScatterOp,
    DescriptorStoreOp,
    LoadOp,
    StoreOp,
)
from passviz.compilers.triton.dialects.tt.pointer import (
    AddPtrOp,
    AdvanceOp,
    BitcastOp,
    IntToPtrOp,
    MakeTensorDescOp,
    MakeTensorPtrOp,
    PtrToIntOp,
)
from passviz.compilers.triton.dialects.tt.region import (
    MapElementwiseOp,
    MapElementwiseReturnOp,
    ReduceOp,
    ReduceReturnOp,
    ScanOp,
    ScanReturnOp,
)
from passviz.compilers.triton.dialects.tt.tensor import (
    BroadcastOp,
    CatOp,
    ExpandDimsOp,
    GatherOp,
    JoinOp,
    ReshapeOp,
    SplatOp,
    SplitOp,
    TransOp,
    UnsplatOp,
)
from passviz.compilers.triton.dialects.tt.traits import (
    Elementwise,
    GlobalMemory,
    SameLoadStoreOperandsAndResultEncoding,
    SameLoadStoreOperandsAndResultShape,
    SameLoadStoreOperandsEncoding,
    SameLoadStoreOperandsShape,
    SameOperandsAndResultElementType,
    SameOperandsAndResultEncoding,
    SameOperandsAndResultShape,
    SameOperandsAndResultType,
    SameOperandsEncoding,
    SameOperandsShape,
    SameTypeOperands,
    TensorSizeTrait,
    TTConstantMaterialization,
)
from passviz.compilers.triton.dialects.tt.types import (
    BoolLikeConstr,
    CacheModifier,
    CachePolicyAttr,
    DescriptorReduceKind,
    EvictionPolicy,
    FloatLikeConstr,
    InputPrecision,
    IntLikeConstr,
    LayoutEncoding,
    LayoutInferenceError,
    MemSemantic,
    MemSyncScope,
    PaddingOption,
    PointerType,
    ProgramIDDim,
    PropagateNan,
    PtrLikeConstr,
    RMWOp,
    RoundingMode,
    ScaleDotElemType,
    TensorDescType,
    TritonI32Enum,
    TritonTypeConstr,
    get_i1_same_shape,
    get_pointee_type,
    get_pointer_type_same_shape,
    is_ptr_like,
    is_tensor_pointer_type,
)

__all__ = [
    "TT",
    "AddPtrOp",
    "AdvanceOp",
    "AssertOp",
    "AtomicCASOp",
    "AtomicRMWOp",
    "BitcastOp",
    "BoolLikeConstr",
    "BroadcastOp",
    "CacheModifier",
    "CachePolicyAttr",
    "CallOp",
    "CatOp",
    "ClampFOp",
    "DescriptorGatherOp",
    "DescriptorLoadOp",
    "DescriptorReduceKind",
    "DescriptorReduceOp",
    "DescriptorScatterOp",
    "DescriptorStoreOp",
    "DotOp",
    "DotScaledOp",
    "Elementwise",
    "ElementwiseInlineAsmOp",
    "EvictionPolicy",
    "ExpandDimsOp",
    "ExternElementwiseOp",
    "FloatLikeConstr",
    "FpToFpOp",
    "FuncOp",
    "GatherOp",
    "GetNumProgramsOp",
    "GetProgramIdOp",
    "GlobalMemory",
    "HistogramOp",
    "InputPrecision",
    "IntLikeConstr",
    "IntToPtrOp",
    "JoinOp",
    "LayoutEncoding",
    "LayoutInferenceError",
    "LoadOp",
    "MakeRangeOp",
    "MakeTensorDescOp",
    "MakeTensorPtrOp",
    "MapElementwiseOp",
    "MapElementwiseReturnOp",
    "MemSemantic",
    "MemSyncScope",
    "MulhiUIOp",
    "PaddingOption",
    "PointerType",
    "PreciseDivFOp",
    "PreciseSqrtOp",
    "PrintOp",
    "ProgramIDDim",
    "PropagateNan",
    "PtrLikeConstr",
    "PtrToIntOp",
    "RMWOp",
    "ReduceOp",
    "ReduceReturnOp",
    "ReshapeOp",
    "ReturnOp",
    "RoundingMode",
    "SameLoadStoreOperandsAndResultEncoding",
    "SameLoadStoreOperandsAndResultShape",
    "SameLoadStoreOperandsEncoding",
    "SameLoadStoreOperandsShape",
    "SameOperandsAndResultElementType",
    "SameOperandsAndResultEncoding",
    "SameOperandsAndResultShape",
    "SameOperandsAndResultType",
    "SameOperandsEncoding",
    "SameOperandsShape",
    "SameTypeOperands",
    "ScaleDotElemType",
    "ScanOp",
    "ScanReturnOp",
    "SplatOp",
    "SplitOp",
    "StoreOp",
    "TTConstantMaterialization",
    "TensorDescType",
    "TensorSizeTrait",
    "TransOp",
    "TritonI32Enum",
    "TritonTypeConstr",
    "UnsplatOp",
    "get_i1_same_shape",
    "get_pointee_type",
    "get_pointer_type_same_shape",
    "is_ptr_like",
    "is_tensor_pointer_type",
]


TT = Dialect(
    "tt",
    [
        # Function ops
        FuncOp,
        CallOp,
        ReturnOp,
        # Memory ops
        LoadOp,
        StoreOp,
        AtomicRMWOp,
        AtomicCASOp,
        DescriptorLoadOp,
        DescriptorStoreOp,
        DescriptorReduceOp,
        DescriptorGatherOp,
        DescriptorScatterOp,
        # Pointer ops
        AddPtrOp,
        AdvanceOp,
        MakeTensorPtrOp,
        MakeTensorDescOp,
        IntToPtrOp,
        PtrToIntOp,
        BitcastOp,
        # Shape ops
        SplatOp,
        UnsplatOp,
        ExpandDimsOp,
        ReshapeOp,
        BroadcastOp,
        CatOp,
        JoinOp,
        SplitOp,
        TransOp,
        GatherOp,
        # SPMD ops
        GetProgramIdOp,
        GetNumProgramsOp,
        MakeRangeOp,
        # Elementwise and math ops
        FpToFpOp,
        ClampFOp,
        PreciseSqrtOp,
        PreciseDivFOp,
        MulhiUIOp,
        ExternElementwiseOp,
        ElementwiseInlineAsmOp,
        HistogramOp,
        # Dot ops
        DotOp,
        DotScaledOp,
        # Region ops
        ReduceOp,
        ReduceReturnOp,
        ScanOp,
        ScanReturnOp,
        MapElementwiseOp,
        MapElementwiseReturnOp,
        # Debug ops
        PrintOp,
        AssertOp,
    ],
    [
        PointerType,
        TensorDescType,
        CachePolicyAttr,
    ],
    [TTConstantMaterialization()],
)
"""Triton's ``tt`` dialect: every op of Triton 3.6's TTIR."""
