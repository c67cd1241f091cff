//! What the graph knows of operators: ONNX's formal input and output names
//! (the generated [`super::op_schemas`] table) and the kind each op is
//! drawn as.

use super::op_schemas::{OP_SCHEMAS, OpSchema, Param};

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
