//! kube-apiserver's static token file (`--token-auth-file`): CSV lines
//! `token,user,uid,"group1,group2"`, and how a request's credentials name one of its users
//! (`Authorization: Bearer <token>`, or on a WebSocket the subprotocol
//! `base64url.bearer.authorization.k8s.io.<token>`), else the anonymous user.

use std::collections::HashMap;
use std::path::Path;

use axum::http::{header, HeaderMap, HeaderValue};
use base64::Engine as _;

use super::{UserInfo, AUTHENTICATED_GROUP};

/// The WebSocket subprotocol prefix that carries a bearer token (browsers cannot set
/// headers on a WebSocket).
const WEBSOCKET_BEARER_PREFIX: &str = "base64url.bearer.authorization.k8s.io.";

/// The users of a token file, by token.
#[derive(Debug, Clone, Default)]
pub struct TokenFile {
    users: HashMap<String, UserInfo>,
}

/// Credentials were given and name nobody: kube-apiserver answers 401 (it does not fall back
/// to the anonymous user for a bad token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unauthorized;

impl TokenFile {
    pub fn read(path: &Path) -> Result<TokenFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("token file '{}': {e}", path.display()))?;
        TokenFile::parse(&text, &path.display().to_string())
    }

    /// Reads the CSV as kube-apiserver does: at least three columns (token, user name, uid),
    /// the optional fourth a comma-separated list of groups; records with an empty token are
    /// skipped; a repeated token's last record wins.
    pub fn parse(text: &str, name: &str) -> Result<TokenFile, String> {
        let mut users = HashMap::new();
        for record in csv_records(text).map_err(|e| format!("token file '{name}': {e}"))? {
            if record.len() < 3 {
                return Err(format!(
                    "token file '{name}' must have at least 3 columns (token, user name, user uid), found {}",
                    record.len()
                ));
            }
            if record[0].is_empty() {
                continue;
            }
            let groups = match record.get(3) {
                Some(groups) => groups.split(',').map(String::from).collect(),
                None => Vec::new(),
            };
            users.insert(
                record[0].clone(),
                UserInfo {
                    name: record[1].clone(),
                    uid: record[2].clone(),
                    groups,
                },
            );
        }
        Ok(TokenFile { users })
    }

    /// The user a token names, with `system:authenticated` added as kube-apiserver adds it.
    pub fn user_of(&self, token: &str) -> Option<UserInfo> {
        let mut user = self.users.get(token)?.clone();
        if !user.in_group(AUTHENTICATED_GROUP) {
            user.groups.push(AUTHENTICATED_GROUP.into());
        }
        Some(user)
    }

    /// Who sent a request with these headers: the bearer token's user, the WebSocket bearer
    /// subprotocol's user, or anonymous when neither is given. A token that is given and
    /// names nobody is [`Unauthorized`]. The credential used is removed from the headers,
    /// as kube-apiserver removes it before handling the request.
    pub fn authenticate(&self, headers: &mut HeaderMap) -> Result<UserInfo, Unauthorized> {
        let mut failed = false;
        if let Some(token) = bearer_token(headers) {
            match self.user_of(&token) {
                Some(user) => {
                    headers.remove(header::AUTHORIZATION);
                    return Ok(user);
                }
                None => failed = true,
            }
        }
        match websocket_bearer_token(headers) {
            Some(Ok((token, other_protocols))) => match self.user_of(&token) {
                Some(user) => {
                    match HeaderValue::from_str(&other_protocols.join(", ")) {
                        Ok(value) if !other_protocols.is_empty() => {
                            headers.insert(header::SEC_WEBSOCKET_PROTOCOL, value);
                        }
                        _ => {
                            headers.remove(header::SEC_WEBSOCKET_PROTOCOL);
                        }
                    }
                    return Ok(user);
                }
                None => failed = true,
            },
            Some(Err(Unauthorized)) => failed = true,
            None => {}
        }
        if failed {
            Err(Unauthorized)
        } else {
            Ok(UserInfo::anonymous())
        }
    }
}

/// `Authorization: Bearer <token>` (the scheme in any case); a missing or empty token is no
/// credential at all.
fn bearer_token(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let mut parts = value.splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_string())
}

/// The token of a WebSocket upgrade's bearer subprotocol, with the other protocols offered;
/// a token that does not decode is [`Unauthorized`].
fn websocket_bearer_token(
    headers: &HeaderMap,
) -> Option<Result<(String, Vec<String>), Unauthorized>> {
    let upgrade = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !upgrade {
        return None;
    }
    let offered: Vec<String> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    let encoded = offered
        .iter()
        .find_map(|p| p.strip_prefix(WEBSOCKET_BEARER_PREFIX))?;
    let decoded = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|token| !token.is_empty());
    let others = offered
        .iter()
        .filter(|p| !p.starts_with(WEBSOCKET_BEARER_PREFIX))
        .cloned()
        .collect();
    Some(decoded.map(|token| (token, others)).ok_or(Unauthorized))
}

/// CSV records as Go's `encoding/csv` reads them with leading spaces trimmed: fields split by
/// commas, a field in double quotes may hold commas, newlines and `""` for a quote; blank
/// lines are skipped.
fn csv_records(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        let mut record = Vec::new();
        loop {
            while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                chars.next();
            }
            let mut field = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                        None => {
                            return Err(format!(
                                "line {line}: extraneous or missing \" in quoted-field"
                            ))
                        }
                    }
                }
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    return Err(format!(
                        "line {line}: extraneous or missing \" in quoted-field"
                    ));
                }
            } else {
                while let Some(c) = chars.peek().copied() {
                    if matches!(c, ',' | '\n' | '\r') {
                        break;
                    }
                    if c == '"' {
                        return Err(format!("line {line}: bare \" in non-quoted-field"));
                    }
                    field.push(c);
                    chars.next();
                }
            }
            record.push(field);
            match chars.next() {
                Some(',') => continue,
                Some('\r') => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    break;
                }
                _ => break,
            }
        }
        line += 1;
        let blank = record.len() == 1 && record[0].is_empty();
        if !blank {
            records.push(record);
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "atlas-admin-token,admin,1,system:masters\n\
                        atlas-viewer-token,viewer,2,\"viewers,auditors\"\n\
                        \n\
                        plain-token,plain,3\n";

    fn users() -> TokenFile {
        TokenFile::parse(FILE, "tokens.csv").expect("a valid file")
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                name.clone(),
                HeaderValue::from_str(value).expect("a header value"),
            );
        }
        map
    }

    #[test]
    fn a_token_names_its_user_with_the_authenticated_group() {
        let viewer = users().user_of("atlas-viewer-token").expect("known");
        assert_eq!(viewer.name, "viewer");
        assert_eq!(viewer.uid, "2");
        assert_eq!(
            viewer.groups,
            ["viewers", "auditors", "system:authenticated"]
        );
        let plain = users().user_of("plain-token").expect("known");
        assert_eq!(plain.groups, ["system:authenticated"]);
        assert!(users().user_of("nope").is_none());
    }

    #[test]
    fn records_need_three_columns() {
        let err = TokenFile::parse("token,user\n", "t.csv").expect_err("two columns");
        assert_eq!(
            err,
            "token file 't.csv' must have at least 3 columns (token, user name, user uid), found 2"
        );
        assert!(TokenFile::parse("a,\"b,c\n", "t.csv").is_err());
    }

    #[test]
    fn requests_are_a_token_user_anonymous_or_unauthorized() {
        let file = users();
        let mut bearer = headers(&[(header::AUTHORIZATION, "bearer atlas-admin-token")]);
        assert_eq!(
            file.authenticate(&mut bearer).map(|u| u.name),
            Ok("admin".to_string())
        );
        assert!(
            bearer.get(header::AUTHORIZATION).is_none(),
            "credential removed"
        );
        assert_eq!(
            file.authenticate(&mut HeaderMap::new()),
            Ok(UserInfo::anonymous())
        );
        let mut empty = headers(&[(header::AUTHORIZATION, "Bearer")]);
        assert_eq!(file.authenticate(&mut empty), Ok(UserInfo::anonymous()));
        let mut basic = headers(&[(header::AUTHORIZATION, "Basic Zm9vOmJhcg==")]);
        assert_eq!(file.authenticate(&mut basic), Ok(UserInfo::anonymous()));
        let mut unknown = headers(&[(header::AUTHORIZATION, "Bearer nope")]);
        assert_eq!(file.authenticate(&mut unknown), Err(Unauthorized));
    }

    #[test]
    fn a_websocket_carries_its_token_as_a_subprotocol() {
        let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("atlas-viewer-token");
        let protocols =
            format!("v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.{encoded}");
        let mut upgrade = headers(&[
            (header::UPGRADE, "websocket"),
            (header::SEC_WEBSOCKET_PROTOCOL, &protocols),
        ]);
        let user = users().authenticate(&mut upgrade).expect("authenticated");
        assert_eq!(user.name, "viewer");
        assert_eq!(
            upgrade
                .get(header::SEC_WEBSOCKET_PROTOCOL)
                .map(|v| v.as_bytes()),
            Some(&b"v5.channel.k8s.io"[..])
        );
        let mut bad = headers(&[
            (header::UPGRADE, "websocket"),
            (
                header::SEC_WEBSOCKET_PROTOCOL,
                "base64url.bearer.authorization.k8s.io.!!!",
            ),
        ]);
        assert_eq!(users().authenticate(&mut bad), Err(Unauthorized));
    }
}
