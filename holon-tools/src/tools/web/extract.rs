//! From response bytes to text: what kind of content it is, its character set, and
//! HTML to readable, Markdown-like text (html2text: headings, emphasis, lists, tables
//! and links kept).

/// The column width HTML is laid out to.
const TEXT_WIDTH: usize = 100;

/// What a response body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// HTML or XHTML.
    Html,
    /// Other text: plain, JSON, XML, CSS, JavaScript, Markdown, ...
    Text,
    /// Anything else: images, PDFs, archives.
    Binary,
}

/// Classifies a body by its `Content-Type`, sniffing when there is none or it is
/// generic.
pub fn classify(content_type: Option<&str>, body: &[u8]) -> BodyKind {
    let mime = content_type
        .and_then(|value| value.split(';').next())
        .map(|mime| mime.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => BodyKind::Html,
        m if m.starts_with("text/")
            || m.ends_with("+json")
            || m.ends_with("+xml")
            || matches!(
                m,
                "application/json"
                    | "application/xml"
                    | "application/javascript"
                    | "application/ecmascript"
                    | "application/x-javascript"
                    | "application/x-ndjson"
                    | "application/yaml"
                    | "application/toml"
            ) =>
        {
            BodyKind::Text
        }
        "" | "application/octet-stream" | "binary/octet-stream" => sniff(body),
        _ => BodyKind::Binary,
    }
}

fn sniff(body: &[u8]) -> BodyKind {
    let head = &body[..body.len().min(1024)];
    if head.contains(&0) {
        return BodyKind::Binary;
    }
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let start = text.trim_start();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        BodyKind::Html
    } else {
        match std::str::from_utf8(head) {
            // An error without a length is a character cut at the end of the sample.
            Err(error) if error.error_len().is_some() => BodyKind::Binary,
            _ => BodyKind::Text,
        }
    }
}

/// Decodes the body as its `charset` says: Latin-1 family byte for byte, anything
/// else as UTF-8 (invalid sequences become U+FFFD).
pub fn decode(content_type: Option<&str>, body: &[u8]) -> String {
    let charset = content_type
        .and_then(|value| {
            value.split(';').skip(1).find_map(|param| {
                let (key, value) = param.split_once('=')?;
                (key.trim().eq_ignore_ascii_case("charset"))
                    .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
            })
        })
        .unwrap_or_default();
    match charset.as_str() {
        "iso-8859-1" | "latin1" | "latin-1" | "windows-1252" | "us-ascii" | "ascii" => {
            body.iter().map(|&b| char::from(b)).collect()
        }
        _ => String::from_utf8_lossy(body).into_owned(),
    }
}

/// HTML as readable text; `None` when the renderer fails.
pub fn html_to_text(html: &str) -> Option<String> {
    html2text::config::plain()
        .string_from_read(html.as_bytes(), TEXT_WIDTH)
        .ok()
        .map(|text| collapse_blank_lines(&text))
}

fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// The document's `<title>`, entities decoded and white space collapsed.
pub fn title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let raw = html.get(start..end)?;
    let decoded = raw
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    let title = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

/// `text` cut to `max_chars` characters; the cut is reported.
pub fn truncate_chars(text: &str, max_chars: usize) -> (String, bool) {
    match text.char_indices().nth(max_chars) {
        Some((index, _)) => (text[..index].to_string(), true),
        None => (text.to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_and_decodes() {
        assert_eq!(
            classify(Some("text/html; charset=utf-8"), b""),
            BodyKind::Html
        );
        assert_eq!(classify(Some("application/ld+json"), b"{}"), BodyKind::Text);
        assert_eq!(classify(Some("image/png"), b"\x89PNG"), BodyKind::Binary);
        assert_eq!(classify(None, b"<!DOCTYPE html><p>x"), BodyKind::Html);
        assert_eq!(classify(None, b"plain words"), BodyKind::Text);
        assert_eq!(classify(None, b"\x00\x01\x02"), BodyKind::Binary);
        assert_eq!(
            decode(Some("text/plain; charset=ISO-8859-1"), b"caf\xe9"),
            "café"
        );
        assert_eq!(decode(Some("text/plain"), "café".as_bytes()), "café");
    }

    #[test]
    fn html_becomes_readable_text() {
        let html = "<html><head><title> A &amp; B </title><style>p{color:red}</style>\
                    <script>alert(1)</script></head><body><h1>Heading</h1>\
                    <p>First <b>para</b>.</p><ul><li>one</li><li>two</li></ul></body></html>";
        let text = html_to_text(html).unwrap();
        assert!(text.contains("Heading"), "{text}");
        assert!(
            text.contains("# Heading") && text.contains("First **para**."),
            "{text}"
        );
        assert!(text.contains("one") && text.contains("two"), "{text}");
        assert!(
            !text.contains("alert") && !text.contains("color:red"),
            "{text}"
        );
        assert!(!text.contains("<p>"), "{text}");
        assert_eq!(title(html).as_deref(), Some("A & B"));
        assert_eq!(truncate_chars("héllo", 2), ("hé".to_string(), true));
        assert_eq!(truncate_chars("hé", 2), ("hé".to_string(), false));
    }
}
