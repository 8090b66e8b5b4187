//! The stage table as the demo prints it, and the report it writes: `report.md` and `index.html`
//! (the pictures with their captions, then the table).

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::Error;

/// One row of the stage table.
pub(crate) struct Row {
    pub(crate) stage: String,
    pub(crate) time: Duration,
    pub(crate) items: u64,
    pub(crate) unit: &'static str,
    pub(crate) memory: usize,
    pub(crate) note: String,
}

/// A picture the demo wrote, by file name in the output folder, with its caption.
pub(crate) struct Picture {
    pub(crate) file: &'static str,
    pub(crate) caption: String,
}

/// What the report gathers while the stages run: the table (printed row by row as it grows) and
/// the pictures.
#[derive(Default)]
pub(crate) struct Report {
    rows: Vec<Row>,
    pictures: Vec<Picture>,
}

impl Report {
    /// Adds a row and prints it (the header first, before the first row).
    pub(crate) fn push(&mut self, row: Row) {
        if self.rows.is_empty() {
            println!("{}", header());
        }
        println!("{}", format_row(&row));
        self.rows.push(row);
    }

    pub(crate) fn picture(&mut self, file: &'static str, caption: String) {
        self.pictures.push(Picture { file, caption });
    }

    /// Writes `report.md` and `index.html` to `out`: the title, the table, the closing lines and
    /// the pictures with their captions.
    pub(crate) fn write(&self, out: &Path, title: &str, closing: &[String]) -> Result<(), Error> {
        let mut report = format!("# voxel-physics demo\n\n{title}\n\n");
        report.push_str(&self.markdown());
        report.push('\n');
        for line in closing {
            let _ = writeln!(report, "{line}");
        }
        report.push_str("\n## Pictures\n\n");
        for p in &self.pictures {
            let _ = writeln!(report, "- `{}`: {}", p.file, p.caption);
        }
        std::fs::write(out.join("report.md"), &report)?;
        std::fs::write(out.join("index.html"), self.html_page(title, closing))?;
        Ok(())
    }

    fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| stage | time | items | items/s | memory | notes |");
        let _ = writeln!(s, "| --- | ---: | ---: | ---: | ---: | --- |");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} {} | {} | {} | {} |",
                r.stage,
                human_time(r.time),
                human_count(r.items as f64),
                r.unit,
                rate(r),
                human_bytes(r.memory),
                r.note
            );
        }
        s
    }

    /// The page beside the pictures: each picture with its caption, then the stage table.
    fn html_page(&self, title: &str, closing: &[String]) -> String {
        let mut page = format!(
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>voxel-physics demo</title>\n\
             <style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}\
             figure{{margin:2em 0}}img{{max-width:100%}}figcaption{{margin-top:.5em}}\
             table{{border-collapse:collapse;font-size:90%}}td,th{{border:1px solid #ccc;padding:.2em .5em}}\
             td.n{{text-align:right;white-space:nowrap}}</style>\n</head>\n<body>\n<h1>voxel-physics demo</h1>\n<p>{}</p>\n",
            escape_html(title)
        );
        for Picture { file, caption } in &self.pictures {
            let _ = writeln!(
                page,
                "<figure>\n<img src=\"{file}\" alt=\"{file}\">\n<figcaption>{}</figcaption>\n</figure>",
                escape_html(caption)
            );
        }
        page.push_str("<h2>Stages</h2>\n<table>\n<tr><th>stage</th><th>time</th><th>items</th><th>items/s</th><th>memory</th><th>notes</th></tr>\n");
        for r in &self.rows {
            let _ = writeln!(
                page,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{} {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                escape_html(&r.stage),
                human_time(r.time),
                human_count(r.items as f64),
                r.unit,
                rate(r),
                human_bytes(r.memory),
                escape_html(&r.note)
            );
        }
        page.push_str("</table>\n");
        for line in closing {
            let _ = writeln!(page, "<p>{}</p>", escape_html(line));
        }
        page.push_str("</body>\n</html>\n");
        page
    }
}

fn header() -> String {
    format!("{:<34} {:>9} {:>18} {:>12} {:>10}  notes", "stage", "time", "items", "items/s", "memory")
}

fn format_row(r: &Row) -> String {
    format!(
        "{:<34} {:>9} {:>18} {:>12} {:>10}  {}",
        r.stage,
        human_time(r.time),
        format!("{} {}", human_count(r.items as f64), r.unit),
        rate(r),
        human_bytes(r.memory),
        r.note
    )
}

fn rate(r: &Row) -> String {
    human_count(r.items as f64 / r.time.as_secs_f64().max(1e-9))
}

pub(crate) fn human_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{:.0} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

pub(crate) fn human_count(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.2} G", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.2} M", n / 1e6)
    } else if n >= 1e4 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

pub(crate) fn human_bytes(b: usize) -> String {
    let b = b as f64;
    if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

/// `text` with the characters HTML gives a meaning escaped.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A stage's progress bar and clock. The bar goes when the clock stops, so the stage's row is
/// printed on a clean line.
pub(crate) struct Timer {
    pub(crate) bar: ProgressBar,
    started: Instant,
}

impl Timer {
    /// Shows a bar of `len` steps named `name` and starts the clock.
    pub(crate) fn start(name: &str, len: u64) -> Self {
        let bar = ProgressBar::new(len).with_prefix(name.to_owned());
        let style = ProgressStyle::with_template("{prefix:>34} [{bar:32}] {percent:>3}% {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        Self { bar, started: Instant::now() }
    }

    /// Stops the clock and clears the bar: the stage's time.
    pub(crate) fn stop(self) -> Duration {
        let time = self.started.elapsed();
        self.bar.finish_and_clear();
        time
    }
}

/// The process's peak resident set (Linux's `VmHWM`), when the system says.
pub(crate) fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
