//! Output: text for people, JSON for programs. Renderers only read the
//! decoded tree; they write to any `io::Write` (the binary passes a buffered,
//! locked stdout) and never print on their own.

pub mod binary;
pub mod bundle_view;
pub mod elide;
pub mod fmt;
pub mod json;
pub mod onnx_view;
pub mod schema_view;
pub mod schemaless;
pub mod shown;
pub mod stats_view;
pub mod summary;
pub mod text;
pub mod textproto;
pub mod tf_record_view;
pub mod tf_view;
pub mod tree;

use crate::tensor::LoadedValues;

use crate::progress::Progress;
use crate::tensor::TensorView;

/// Choices that shape the output.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// How many values of each tensor to print; None prints all.
    pub values: Option<u64>,
    /// The input's folder, for external data; None for standard input.
    pub dir: Option<crate::external::Folder>,
    /// Show every field's byte range.
    pub offsets: bool,
    /// Sparse tensors: also show the dense tensor (`--dense`).
    pub dense: bool,
    /// Draw colour previews of image-shaped tensors (a colour terminal).
    pub color: bool,
    /// Add a text histogram to each numeric tensor (`--histogram`).
    pub histogram: bool,
    /// Statistics for every tensor, also nested ones whose values are only
    /// previewed (`--stats`: reads every value of a model).
    pub stats: bool,
    /// Print every value implied by TensorFlow's padding rule, past
    /// [`crate::tensor::MAX_IMPLIED_VALUES`] (`--allow-implied`).
    pub allow_implied: bool,
    /// Told of the progress of long passes over values.
    pub progress: ProgressHandle,
}

/// How many values of a tensor to print given the requested `limit`, and
/// whether the cap on implied values lowered it.
pub fn value_limit(view: &TensorView<'_, '_>, limit: u64, opts: &RenderOptions) -> (u64, bool) {
    let implied_cap = view.implied_print_cap();
    if opts.allow_implied || view.implied_elements() <= implied_cap {
        return (limit, false);
    }
    let cap = view.stored_elements().saturating_add(implied_cap);
    if limit > cap {
        (cap, true)
    } else {
        (limit, false)
    }
}

/// A shared [`Progress`] for the renderers (reports nothing by default).
#[derive(Clone, Default)]
pub struct ProgressHandle(Option<std::sync::Arc<dyn Progress + Send>>);

impl ProgressHandle {
    pub fn new(p: std::sync::Arc<dyn Progress + Send>) -> Self {
        ProgressHandle(Some(p))
    }

    pub fn get(&self) -> &dyn Progress {
        match &self.0 {
            Some(p) => p.as_ref(),
            None => &crate::progress::Silent,
        }
    }
}

impl std::fmt::Debug for ProgressHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressHandle(..)"
        } else {
            "ProgressHandle(none)"
        })
    }
}

/// Resolves where a tensor's values are (external files relative to the
/// input's folder).
pub fn load_values<'v>(view: &TensorView<'v, 'v>, opts: &RenderOptions) -> LoadedValues<'v> {
    crate::tensor::load_values(view, opts.dir.as_ref())
}
