//! A tiny well-formedness checker for the renderers' XML, so tests need no XML dependency.
//!
//! Checks what a parser would reject: one root element, balanced and correctly nested tags,
//! attributes as `name="value"`, no raw `<` or `&` in text or attribute values (only the five
//! named entities and numeric references), no raw `"` in attribute values, no chars XML 1.0 forbids.

/// `Ok(())` if `xml` is a well-formed document with a single root element.
pub fn check(xml: &str) -> Result<(), String> {
    if let Some(c) = xml.chars().find(|&c| forbidden(c)) {
        return Err(format!("forbidden char {c:?}"));
    }
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = xml;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            text(rest, !stack.is_empty())?;
            break;
        };
        text(&rest[..lt], !stack.is_empty())?;
        let Some(gt) = rest[lt..].find('>') else { return Err("unterminated tag".into()) };
        let tag = &rest[lt + 1..lt + gt];
        rest = &rest[lt + gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let (body, self_closing) = match tag.strip_suffix('/') {
            Some(body) => (body, true),
            None => (tag, false),
        };
        let name = start_tag(body)?;
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name);
        }
    }
    match (stack.last(), roots) {
        (Some(open), _) => Err(format!("<{open}> is never closed")),
        (None, 1) => Ok(()),
        (None, n) => Err(format!("{n} root elements")),
    }
}

fn forbidden(c: char) -> bool {
    (c.is_control() && !matches!(c, '\n' | '\r' | '\t')) || c == '\u{FFFE}' || c == '\u{FFFF}'
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// Validates `name attr="v" ...` and returns the name.
fn start_tag(body: &str) -> Result<&str, String> {
    let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
    let name = &body[..name_end];
    if !is_name(name) {
        return Err(format!("bad tag name {name:?}"));
    }
    let mut rest = body[name_end..].trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find("=\"") else { return Err(format!("bad attribute in {body:?}")) };
        if !is_name(&rest[..eq]) {
            return Err(format!("bad attribute name {:?}", &rest[..eq]));
        }
        let value_start = eq + 2;
        let Some(close) = rest[value_start..].find('"') else { return Err("unterminated attribute".into()) };
        let value = &rest[value_start..value_start + close];
        entities(value)?;
        let after = &rest[value_start + close + 1..];
        if !after.is_empty() && !after.starts_with(char::is_whitespace) {
            return Err(format!("attributes not separated in {body:?}"));
        }
        rest = after.trim_start();
    }
    Ok(name)
}

/// Text content: entities only; outside the root, whitespace only.
fn text(s: &str, inside: bool) -> Result<(), String> {
    if !inside && !s.trim().is_empty() {
        return Err(format!("text outside the root: {s:?}"));
    }
    entities(s)
}

/// Every `&` starts a known entity or a numeric reference; no raw `<` (the caller split on it).
fn entities(s: &str) -> Result<(), String> {
    if s.contains('<') {
        return Err(format!("raw < in {s:?}"));
    }
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        rest = &rest[amp + 1..];
        let Some(semi) = rest.find(';') else { return Err(format!("bare & in {s:?}")) };
        let entity = &rest[..semi];
        let numeric =
            entity.strip_prefix('#').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !numeric && !matches!(entity, "lt" | "gt" | "amp" | "quot" | "apos") {
            return Err(format!("unknown entity &{entity}; in {s:?}"));
        }
        rest = &rest[semi + 1..];
    }
    Ok(())
}

#[test]
fn the_checker_rejects_what_a_parser_would() {
    assert!(check("<a x=\"1\"><b>t &amp; u</b><c/></a>").is_ok());
    assert!(check("<a>x</b>").is_err());
    assert!(check("<a><b></a></b>").is_err());
    assert!(check("<a>1 < 2</a>").is_err());
    assert!(check("<a>AT&T</a>").is_err());
    assert!(check("<a x=\"\"\"></a>").is_err());
    assert!(check("<a></a><b></b>").is_err());
    assert!(check("<a>").is_err());
    assert!(check("text").is_err());
    assert!(check("<a>\u{1}</a>").is_err());
}
