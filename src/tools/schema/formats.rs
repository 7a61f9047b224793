//! `format` as an assertion, on request (`formats: "assertion"`), for the formats Zod's
//! `toJSONSchema` emits: `email`, `uri`, `uuid`, `date`, `date-time`, `time`, `ipv4`, `ipv6`.
//! Hand-written checks after the RFCs the JSON Schema spec names (3339, 5321, 3986, 4122, 2673,
//! 4291), so the wasm carries no parser crates. Other format names stay annotations.

use serde::{Deserialize, Serialize};

/// Whether `format` is only an annotation (draft 2020-12's default) or also asserted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Formats {
    /// `format` is ignored when validating (`"annotation"`).
    #[default]
    Annotation,
    /// The formats Zod emits are checked; other names stay annotations (`"assertion"`).
    Assertion,
}

/// A format keel can assert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StringFormat {
    /// `email`: an RFC 5321 mailbox.
    Email,
    /// `uri`: an RFC 3986 absolute URI.
    Uri,
    /// `uuid`: RFC 4122's hex-and-hyphens form.
    Uuid,
    /// `date`: RFC 3339 full-date.
    Date,
    /// `date-time`: RFC 3339 date-time.
    DateTime,
    /// `time`: RFC 3339 full-time (with an offset).
    Time,
    /// `ipv4`: a dotted quad.
    Ipv4,
    /// `ipv6`: RFC 4291 text form.
    Ipv6,
}

impl StringFormat {
    /// The format a `format` name asks for, if keel asserts it.
    pub fn named(name: &str) -> Option<StringFormat> {
        Some(match name {
            "email" => StringFormat::Email,
            "uri" => StringFormat::Uri,
            "uuid" => StringFormat::Uuid,
            "date" => StringFormat::Date,
            "date-time" => StringFormat::DateTime,
            "time" => StringFormat::Time,
            "ipv4" => StringFormat::Ipv4,
            "ipv6" => StringFormat::Ipv6,
            _ => return None,
        })
    }

    /// Whether `text` is in this format.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            StringFormat::Email => email(text),
            StringFormat::Uri => uri(text),
            StringFormat::Uuid => uuid(text),
            StringFormat::Date => date(text),
            StringFormat::DateTime => date_time(text),
            StringFormat::Time => time(text),
            StringFormat::Ipv4 => ipv4(text),
            StringFormat::Ipv6 => ipv6(text),
        }
    }

    /// What a value in this format looks like, for an issue's `expected`.
    pub fn expected(self) -> &'static str {
        match self {
            StringFormat::Email => "an e-mail address (name@example.com)",
            StringFormat::Uri => "an absolute URI with a scheme (https://example.com/path)",
            StringFormat::Uuid => "a UUID (8-4-4-4-12 hex digits: 123e4567-e89b-12d3-a456-426614174000)",
            StringFormat::Date => "a date as YYYY-MM-DD (2026-11-26)",
            StringFormat::DateTime => "a date-time in RFC 3339 form (2026-11-26T07:30:00Z)",
            StringFormat::Time => "a time with an offset, HH:MM:SS and Z or ±HH:MM (07:30:00Z)",
            StringFormat::Ipv4 => "an IPv4 address (192.168.0.1)",
            StringFormat::Ipv6 => "an IPv6 address (2001:db8::1)",
        }
    }
}

/// `count` ASCII digits at the start of `text`, as a number.
fn digits(text: &str, count: usize) -> Option<u32> {
    let part = text.get(..count)?;
    part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
}

/// RFC 3339 full-date, the day checked against the month (and leap years).
fn date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(text, 4), digits(&text[5..], 2), digits(&text[8..], 2))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 full-time: `HH:MM:SS`, optional fraction, then `Z` or `±HH:MM`; a leap second only
/// where the time is 23:59:60 in UTC.
fn time(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(text, 2), digits(&text[3..], 2), digits(&text[6..], 2))
    else {
        return false;
    };
    let mut rest = &text[8..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let count = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || !matches!(rb[0], b'+' | b'-') || rb[3] != b':' {
                return false;
            }
            let (Some(h), Some(m)) = (digits(&rest[1..], 2), digits(&rest[4..], 2)) else { return false };
            if h > 23 || m > 59 {
                return false;
            }
            let minutes = (h * 60 + m) as i64;
            if rb[0] == b'+' {
                minutes
            } else {
                -minutes
            }
        }
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) - offset).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// RFC 3339 date-time: a full-date, `T` (or `t`), a full-time.
fn date_time(text: &str) -> bool {
    match text.get(10..11) {
        Some("T" | "t") => date(&text[..10]) && time(&text[11..]),
        _ => false,
    }
}

/// 8-4-4-4-12 hex digits.
fn uuid(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A dotted quad of 0–255, without leading zeros (`010` reads as octal elsewhere).
fn ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && !(p.len() > 1 && p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// RFC 4291: eight groups of 1–4 hex digits, one `::` for a run of zero groups, the last two
/// groups possibly written as an IPv4 address. No zone id.
fn ipv6(text: &str) -> bool {
    if text.is_empty() || !text.is_ascii() {
        return false;
    }
    let (head, tail, compressed) = match text.split_once("::") {
        Some((head, tail)) if !tail.contains("::") => (head, tail, true),
        Some(_) => return false,
        None => (text, "", false),
    };
    let groups = |part: &str, last: bool| -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let pieces: Vec<&str> = part.split(':').collect();
        let mut count = 0;
        for (i, piece) in pieces.iter().enumerate() {
            if last && i == pieces.len() - 1 && piece.contains('.') {
                ipv4(piece).then_some(())?;
                count += 2;
            } else if (1..=4).contains(&piece.len()) && piece.bytes().all(|b| b.is_ascii_hexdigit()) {
                count += 1;
            } else {
                return None;
            }
        }
        Some(count)
    };
    let (Some(before), Some(after)) = (groups(head, !compressed), groups(tail, true)) else { return false };
    if compressed {
        before + after <= 7
    } else {
        before == 8
    }
}

/// An RFC 5321 mailbox: a dot-atom or quoted local part, `@`, a host name or an address literal
/// (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
fn email(text: &str) -> bool {
    let Some(at) = text.rfind('@') else { return false };
    let (local, domain) = (&text[..at], &text[at + 1..]);
    let local_ok = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        !quoted.is_empty() && quoted.chars().all(|c| c != '"' && c != '\\' && !c.is_control())
    } else {
        let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
        !local.is_empty() && local.split('.').all(|atom| !atom.is_empty() && atom.chars().all(atext))
    };
    let domain_ok = if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        match literal.strip_prefix("IPv6:") {
            Some(v6) => ipv6(v6),
            None => ipv4(literal),
        }
    } else {
        hostname(domain)
    };
    local_ok && domain_ok
}

/// Labels of letters, digits and inner hyphens, each 1–63 long, 253 in all.
fn hostname(text: &str) -> bool {
    let text = text.strip_suffix('.').unwrap_or(text);
    (1..=253).contains(&text.len())
        && text.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// RFC 3986 absolute URI: a scheme, `:`, and the rest made of URI characters with valid
/// percent-escapes; an authority's host is a bracketed IP literal or a registered name, its port
/// digits.
fn uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else { return false };
    let scheme_ok = scheme.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok || !uri_chars(rest) {
        return false;
    }
    let Some(after) = rest.strip_prefix("//") else { return !rest.contains(['[', ']']) };
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, path) = (&after[..end], &after[end..]);
    let host_port =
        authority.rsplit_once('@').map_or(
            authority,
            |(user, host)| {
                if user.contains(['[', ']', '@']) {
                    ""
                } else {
                    host
                }
            },
        );
    let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let Some((inside, after)) = literal.split_once(']') else { return false };
        if !(ipv6(inside) || inside.starts_with(['v', 'V'])) {
            return false;
        }
        (None, after.strip_prefix(':').map(Some).unwrap_or(if after.is_empty() { None } else { Some("x") }))
    } else {
        match host_port.rsplit_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(host_port), None),
        }
    };
    let host_ok = host.is_none_or(|h| !h.contains(['[', ']']));
    let port_ok = port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()));
    let query_ok = !path.contains(['[', ']']);
    (authority.is_empty() || !host_port.is_empty()) && host_ok && port_ok && query_ok
}

/// Whether every character may appear in a URI and every `%` starts an escape.
fn uri_chars(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return false;
                }
                i += 3;
                continue;
            }
            c if c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c) => {}
            _ => return false,
        }
        i += 1;
    }
    true
}
