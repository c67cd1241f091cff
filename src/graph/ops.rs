//! What the graph knows of operators: ONNX's formal input and output names
//! (the generated [`super::op_schemas`] table) and the kind each op is
//! drawn as.

use super::op_schemas::{OP_SCHEMAS, OpSchema, Param};
use super::tf_op_defs::TF_OP_DEFS;

/// The schema of `domain.op` at opset `version` (the newest one not after
/// it; the newest of all when the version is unknown). `ai.onnx` is the
/// default domain.
pub fn schema(domain: &str, op: &str, version: Option<i64>) -> Option<&'static OpSchema> {
    let domain = if domain == "ai.onnx" { "" } else { domain };
    let start = OP_SCHEMAS.partition_point(|s| (s.domain, s.op) < (domain, op));
    let rest = OP_SCHEMAS.get(start..)?;
    let end = rest.partition_point(|s| (s.domain, s.op) == (domain, op));
    let versions = rest.get(..end)?;
    match version {
        Some(v) => versions.iter().rev().find(|s| s.since <= v),
        None => versions.last(),
    }
}

/// The formal name of a node's `k`-th input or output under `params`:
/// the parameter at `k`, or the variadic last one (`inputs`, `inputs`, ...).
pub fn formal(params: &[(&'static str, Param)], k: usize) -> Option<&'static str> {
    match params.get(k) {
        Some((name, _)) => Some(name),
        None => match params.last() {
            Some((name, Param::Variadic)) => Some(name),
            _ => None,
        },
    }
}

/// TensorFlow op `op`'s input and output arguments, as the generated
/// table writes them (`values*N,axis`, `args+Tin`).
pub fn tf_op_def(op: &str) -> Option<(&'static str, &'static str)> {
    let i = TF_OP_DEFS
        .binary_search_by(|row| row.split('|').next().unwrap_or("").cmp(op))
        .ok()?;
    let mut parts = TF_OP_DEFS.get(i)?.split('|').skip(1);
    Some((parts.next()?, parts.next()?))
}

/// The formal name of each of the first `limit` values of TensorFlow
/// arguments `args` (see [`tf_op_def`]): an argument's name once, or as
/// many times as the node's attribute says (`count(attr, type_list)`: the
/// integer `N` of a `number_attr`, the length of a `type_list_attr`). An
/// argument whose count is unknown ends the list, and when it is the last
/// one takes every value left. At most `limit` names: the node's own values
/// bound what an attribute declares.
pub fn tf_formals(
    args: &'static str,
    count: impl Fn(&str, bool) -> Option<usize>,
    limit: usize,
) -> Vec<&'static str> {
    let mut out = Vec::new();
    let list: Vec<&'static str> = args.split(',').filter(|a| !a.is_empty()).collect();
    for (k, arg) in list.iter().enumerate() {
        if out.len() >= limit {
            break;
        }
        let (name, n) = if let Some((name, attr)) = arg.split_once('*') {
            (name, count(attr, false))
        } else if let Some((name, attr)) = arg.split_once('+') {
            (name, count(attr, true))
        } else {
            (*arg, Some(1))
        };
        let last = k + 1 == list.len();
        let n = match n {
            Some(n) => n,
            None if last => usize::MAX,
            None => break,
        };
        let take = n.min(limit - out.len());
        out.extend(std::iter::repeat_n(name, take));
    }
    out
}

/// What an op does, for the colour of its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Conv,
    Linear,
    Activation,
    Normalization,
    Pooling,
    Shape,
    Math,
    Reduce,
    Control,
    Constant,
    Input,
    Variable,
    Quantize,
    Function,
    Other,
}

impl Kind {
    /// Its name in the JSON and the SVG's class.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Conv => "conv",
            Kind::Linear => "linear",
            Kind::Activation => "activation",
            Kind::Normalization => "normalization",
            Kind::Pooling => "pooling",
            Kind::Shape => "shape",
            Kind::Math => "math",
            Kind::Reduce => "reduce",
            Kind::Control => "control",
            Kind::Constant => "constant",
            Kind::Input => "input",
            Kind::Variable => "variable",
            Kind::Quantize => "quantize",
            Kind::Function => "function",
            Kind::Other => "other",
        }
    }

    /// Every kind, in the order of [`Kind::name`]'s match.
    pub const ALL: [Kind; 15] = [
        Kind::Conv,
        Kind::Linear,
        Kind::Activation,
        Kind::Normalization,
        Kind::Pooling,
        Kind::Shape,
        Kind::Math,
        Kind::Reduce,
        Kind::Control,
        Kind::Constant,
        Kind::Input,
        Kind::Variable,
        Kind::Quantize,
        Kind::Function,
        Kind::Other,
    ];

    /// The fill colour of its box (the SVG; the page has its own palette).
    pub fn fill(self) -> &'static str {
        match self {
            Kind::Conv => "#cfe2f3",
            Kind::Linear => "#c9daf8",
            Kind::Activation => "#f4cccc",
            Kind::Normalization => "#d9ead3",
            Kind::Pooling => "#d0e0e3",
            Kind::Shape => "#eeeeee",
            Kind::Math => "#fff2cc",
            Kind::Reduce => "#fce5cd",
            Kind::Control => "#d9d2e9",
            Kind::Constant => "#f3f3f3",
            Kind::Input => "#ffffff",
            Kind::Variable => "#ead1dc",
            Kind::Quantize => "#e6d7c3",
            Kind::Function => "#e1d5e7",
            Kind::Other => "#ffffff",
        }
    }
}

/// The kind of an op, by its name (ONNX and TensorFlow names alike).
pub fn kind_of(op: &str) -> Kind {
    match op {
        "Conv"
        | "ConvTranspose"
        | "ConvInteger"
        | "QLinearConv"
        | "DeformConv"
        | "Conv1D"
        | "Conv2D"
        | "Conv3D"
        | "Conv2DBackpropInput"
        | "Conv3DBackpropInputV2"
        | "DepthwiseConv2dNative"
        | "FusedConv2D"
        | "_FusedConv2D" => Kind::Conv,
        "Gemm" | "MatMul" | "MatMulInteger" | "QLinearMatMul" | "MatMulV2" | "BatchMatMul"
        | "BatchMatMulV2" | "BatchMatMulV3" | "Einsum" | "_FusedMatMul" | "BiasAdd" => Kind::Linear,
        "Relu" | "LeakyRelu" | "PRelu" | "Sigmoid" | "HardSigmoid" | "Tanh" | "Elu" | "Selu"
        | "Celu" | "Gelu" | "FastGelu" | "Softmax" | "LogSoftmax" | "Hardmax" | "Softplus"
        | "Softsign" | "HardSwish" | "Mish" | "Swish" | "Silu" | "ThresholdedRelu" | "Relu6"
        | "Clip" | "QuickGelu" => Kind::Activation,
        "BatchNormalization"
        | "LayerNormalization"
        | "InstanceNormalization"
        | "GroupNormalization"
        | "LpNormalization"
        | "MeanVarianceNormalization"
        | "SimplifiedLayerNormalization"
        | "SkipLayerNormalization"
        | "RMSNormalization"
        | "LRN"
        | "FusedBatchNorm"
        | "FusedBatchNormV2"
        | "FusedBatchNormV3"
        | "L2Normalization" => Kind::Normalization,
        "MaxPool" | "AveragePool" | "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool"
        | "LpPool" | "MaxRoiPool" | "RoiAlign" | "MaxUnpool" | "AvgPool" | "AvgPool3D"
        | "MaxPoolV2" | "MaxPool3D" | "MaxPoolWithArgmax" => Kind::Pooling,
        "Reshape"
        | "Transpose"
        | "Flatten"
        | "Squeeze"
        | "Unsqueeze"
        | "Concat"
        | "ConcatV2"
        | "Split"
        | "SplitV"
        | "Slice"
        | "StridedSlice"
        | "Gather"
        | "GatherV2"
        | "GatherElements"
        | "GatherND"
        | "Scatter"
        | "ScatterElements"
        | "ScatterND"
        | "Shape"
        | "Size"
        | "Expand"
        | "ExpandDims"
        | "Tile"
        | "Pad"
        | "PadV2"
        | "MirrorPad"
        | "Resize"
        | "Upsample"
        | "ResizeBilinear"
        | "ResizeNearestNeighbor"
        | "Identity"
        | "IdentityN"
        | "Cast"
        | "CastLike"
        | "Pack"
        | "Unpack"
        | "DepthToSpace"
        | "SpaceToDepth"
        | "Range"
        | "Fill"
        | "ZerosLike"
        | "OnesLike"
        | "Where"
        | "SelectV2"
        | "Select"
        | "NonZero"
        | "Compress"
        | "OneHot"
        | "Trilu"
        | "ConstantOfShape"
        | "Dropout" => Kind::Shape,
        "Add" | "AddV2" | "Sub" | "Mul" | "Div" | "RealDiv" | "FloorDiv" | "Pow" | "Sqrt"
        | "Rsqrt" | "Reciprocal" | "Exp" | "Log" | "Neg" | "Abs" | "Floor" | "Ceil" | "Round"
        | "Sign" | "Sin" | "Cos" | "Tan" | "Erf" | "Mod" | "FloorMod" | "Max" | "Min"
        | "Maximum" | "Minimum" | "Sum" | "Mean" | "Equal" | "Greater" | "GreaterOrEqual"
        | "GreaterEqual" | "Less" | "LessOrEqual" | "LessEqual" | "Not" | "And" | "Or" | "Xor"
        | "LogicalAnd" | "LogicalOr" | "LogicalNot" | "Square" | "SquaredDifference"
        | "BitShift" | "IsNaN" | "IsInf" | "AddN" => Kind::Math,
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" | "ArgMax"
        | "ArgMin" | "TopK" | "TopKV2" | "Prod" | "All" | "Any" | "CumSum" | "Cumsum" => {
            Kind::Reduce
        }
        "If"
        | "Loop"
        | "Scan"
        | "While"
        | "StatelessWhile"
        | "StatelessIf"
        | "PartitionedCall"
        | "StatefulPartitionedCall"
        | "Switch"
        | "Merge"
        | "Enter"
        | "Exit"
        | "NextIteration"
        | "LoopCond"
        | "NoOp"
        | "SequenceMap" => Kind::Control,
        "Constant" | "Const" | "HostConst" => Kind::Constant,
        "Placeholder" | "PlaceholderWithDefault" | "_Arg" => Kind::Input,
        "VariableV2" | "Variable" | "VarHandleOp" | "ReadVariableOp" | "AssignVariableOp"
        | "Assign" | "RestoreV2" | "SaveV2" => Kind::Variable,
        "QuantizeLinear"
        | "DequantizeLinear"
        | "DynamicQuantizeLinear"
        | "QuantizeV2"
        | "Dequantize"
        | "FakeQuantWithMinMaxVars" => Kind::Quantize,
        _ => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::{TF_OP_DEFS, tf_formals, tf_op_def};

    /// The look-up is a binary search by op name: the table is sorted by
    /// it (not by the whole row: `IdentityN|` sorts before `Identity|`),
    /// each row `op|inputs|outputs`.
    #[test]
    fn tf_table_is_sorted_by_op() {
        let op = |row: &str| row.split('|').next().unwrap_or("").to_string();
        for pair in TF_OP_DEFS.windows(2) {
            if let [a, b] = pair {
                assert!(op(a) < op(b), "{a} before {b}");
            }
        }
        assert!(TF_OP_DEFS.iter().all(|r| r.split('|').count() == 3));
        assert_eq!(tf_op_def("Identity"), Some(("input", "output")));
        assert_eq!(tf_op_def("IdentityN"), Some(("input+T", "output+T")));
        assert_eq!(tf_op_def("NoSuchOp"), None);
    }

    #[test]
    fn tf_variadic_arguments_expand() {
        let n3 = |attr: &str, list: bool| (attr == "N" && !list).then_some(3);
        assert_eq!(
            tf_formals("values*N,axis", n3, 10),
            ["values", "values", "values", "axis"]
        );
        // Bounded by the node's own values, whatever N says.
        let huge = |_: &str, _: bool| Some(usize::MAX);
        assert_eq!(tf_formals("values*N,axis", huge, 2), ["values", "values"]);
        // A type list's length; an unknown count ends the list, or takes
        // what is left when last.
        let two = |attr: &str, list: bool| (attr == "Tin" && list).then_some(2);
        assert_eq!(
            tf_formals("cond,input+Tin", two, 5),
            ["cond", "input", "input"]
        );
        let unknown = |_: &str, _: bool| None;
        assert_eq!(
            tf_formals("cond,input+Tin", unknown, 4),
            ["cond", "input", "input", "input"]
        );
        assert_eq!(tf_formals("values*N,axis", unknown, 4), Vec::<&str>::new());
    }
}
