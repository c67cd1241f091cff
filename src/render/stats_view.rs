//! The text and JSON forms of tensor statistics and histograms (computed
//! by [`crate::stats`]): the lines the text view adds after a tensor's
//! values, and the objects JSON writes under "stats" and "histogram".

use super::RenderOptions;
use crate::external::Folder;
use crate::json_writer::JsonWriter;
use crate::picture::write_preview;
use crate::stats::kernel::Extreme;
use crate::stats::{Histogram, Stats, histogram, short};
use crate::tensor::{Elem, TensorView};
use std::io::{self, Write};

impl Extreme {
    pub fn write_json(self, w: &mut JsonWriter<'_>) -> io::Result<()> {
        match self {
            Extreme::Int(v) => w.value(v),
            Extreme::UInt(v) => w.value(v),
            Extreme::F32(v) => w.value(v),
            Extreme::F64(v) => w.value(v),
        }
    }
}

impl Stats {
    /// The two text lines of the text view, each prefixed by `indent`.
    pub fn write_text(&self, w: &mut dyn Write, indent: &str) -> io::Result<()> {
        if self.strings {
            return Ok(());
        }
        let label = if self.magnitude {
            "stats |z|:"
        } else {
            "stats:    "
        };
        write!(w, "{indent}{label} count {}", self.count)?;
        if let (Some(min), Some(max)) = (self.min, self.max) {
            write!(w, "  min {}  max {}", min.text(), max.text())?;
        }
        if let (Some(mean), Some(std)) = (self.mean(), self.std()) {
            write!(w, "  mean {}  std {}", short(mean), short(std))?;
        }
        writeln!(w)?;
        writeln!(
            w,
            "{indent}           NaN {}  +Inf {}  -Inf {}  zeros {}",
            self.nan, self.pos_inf, self.neg_inf, self.zeros
        )
    }

    /// The JSON object written under "stats": min, max, mean and std are
    /// null when there are no finite values.
    pub fn write_json(&self, w: &mut JsonWriter<'_>) -> io::Result<()> {
        w.begin_object()?;
        w.member("count", self.count)?;
        for (key, extreme) in [("min", self.min), ("max", self.max)] {
            w.key(key)?;
            match extreme {
                Some(m) => m.write_json(w)?,
                None => w.null()?,
            }
        }
        w.member("mean", self.mean())?;
        w.member("std", self.std())?;
        w.member("nan", self.nan)?;
        w.member("pos_inf", self.pos_inf)?;
        w.member("neg_inf", self.neg_inf)?;
        w.member("zeros", self.zeros)?;
        if self.magnitude {
            w.member("of", "magnitude")?;
        }
        w.end_object()
    }
}

/// Width of the longest bar, in characters.
const BAR_WIDTH: u64 = 40;

impl Histogram {
    /// `{"bins": [{"label": "[0, 0.5)", "count": 3}, ...]}`, the labels
    /// as the text view writes them.
    pub fn write_json(&self, w: &mut JsonWriter<'_>) -> io::Result<()> {
        w.begin_object()?;
        w.key("bins")?;
        w.begin_array()?;
        for (i, c) in self.counts.iter().enumerate() {
            w.begin_object()?;
            w.member("label", &self.label(i))?;
            w.member("count", *c)?;
            w.end_object()?;
        }
        w.end_array()?;
        w.end_object()
    }

    pub fn write_text(&self, w: &mut dyn Write, indent: &str) -> io::Result<()> {
        writeln!(w, "{indent}histogram:")?;
        let labels: Vec<String> = (0..self.counts.len()).map(|i| self.label(i)).collect();
        let label_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let count_width = self
            .counts
            .iter()
            .map(|c| c.to_string().len())
            .max()
            .unwrap_or(1);
        let top = self.counts.iter().copied().max().unwrap_or(0).max(1);
        for (label, &c) in labels.iter().zip(&self.counts) {
            // Any non-empty bin shows at least one mark.
            let bar = if c == 0 {
                0
            } else {
                (u128::from(c) * u128::from(BAR_WIDTH))
                    .div_ceil(u128::from(top))
                    .max(1)
            };
            writeln!(
                w,
                "{indent}  {label:<label_width$}  {c:>count_width$}  {}",
                "#".repeat(bar as usize)
            )?;
        }
        Ok(())
    }
}

/// What the text view adds after a tensor's values: the statistics lines,
/// the histogram (`opts.histogram`) and the colour preview of an
/// image-shaped tensor (`opts.color`), each line prefixed by `indent`.
/// Strings get nothing.
pub fn write_text_summary(
    w: &mut dyn Write,
    indent: &str,
    view: &TensorView<'_, '_>,
    dir: Option<&Folder>,
    stats: &Stats,
    opts: &RenderOptions,
) -> io::Result<()> {
    if !view.elem.is_some_and(Elem::is_numeric) || stats.strings {
        return Ok(());
    }
    stats.write_text(w, indent)?;
    if opts.histogram
        && let Some(h) = histogram(view, dir, stats)
    {
        h.write_text(w, indent)?;
    }
    if opts.color {
        write_preview(w, indent, view, dir, stats)?;
    }
    Ok(())
}
