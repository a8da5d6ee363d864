//! Keeping an OIDC session's ID token valid: a task per session refreshes it with the refresh
//! token before it expires (a third of its lifetime before, at most a minute) and swaps the
//! session's bearer, so requests made after carry the new token while streams opened before
//! go on (kube-apiserver checks a token when a request starts). When the issuer refuses, or
//! cannot be reached until the token has expired, the session ends: its streams close and the
//! next page load shows the sign-in page saying the sign-in expired.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use openidconnect::core::{CoreErrorResponseType, CoreGenderClaim};
use openidconnect::{
    EmptyAdditionalClaims, IdTokenClaims, Nonce, OAuth2TokenResponse, RefreshToken,
    RequestTokenError, StandardErrorResponse, TokenResponse,
};

use super::Oidc;
use crate::session::{BearerToken, Session};

/// A refresh that failed for a reason that may pass is tried again after this.
const RETRY_AFTER: Duration = Duration::from_secs(5);
/// The most time left on a token when it is refreshed.
const MOST_AHEAD: Duration = Duration::from_secs(60);

/// What renews a session's token: the refresh token (held by the task only) and when the
/// current ID token was issued and expires.
pub struct Grant {
    refresh_token: Option<RefreshToken>,
    issued: SystemTime,
    expires: SystemTime,
    subject: String,
}

impl Grant {
    pub fn new(
        claims: &IdTokenClaims<EmptyAdditionalClaims, CoreGenderClaim>,
        refresh_token: Option<RefreshToken>,
    ) -> Grant {
        Grant {
            refresh_token,
            issued: at(claims.issue_time().timestamp()),
            expires: at(claims.expiration().timestamp()),
            subject: claims.subject().as_str().to_string(),
        }
    }
}

fn at(seconds: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(u64::try_from(seconds).unwrap_or(0))
}

/// When to refresh a token issued at `issued` that expires at `expires`: a third of its
/// lifetime before it expires, at most [`MOST_AHEAD`] before.
pub fn refresh_at(issued: SystemTime, expires: SystemTime) -> SystemTime {
    let lifetime = expires.duration_since(issued).unwrap_or_default();
    expires - (lifetime / 3).min(MOST_AHEAD)
}

/// Refreshes `session`'s token until the session ends; ends it when the token cannot be
/// renewed.
pub async fn keep_fresh(oidc: Arc<Oidc>, session: Arc<Session>, mut grant: Grant) {
    let ended = session.ended();
    tokio::pin!(ended);
    loop {
        let due = if grant.refresh_token.is_some() {
            refresh_at(grant.issued, grant.expires)
        } else {
            // Nothing to renew it with: the session lasts as long as its token.
            grant.expires
        };
        let wait = due.duration_since(SystemTime::now()).unwrap_or_default();
        tokio::select! {
            () = &mut ended => return,
            () = tokio::time::sleep(wait) => {}
        }
        let Some(refresh_token) = grant.refresh_token.clone() else {
            end(
                &session,
                "the ID token expired and the issuer gave no refresh token",
            );
            return;
        };
        match refresh(&oidc, &refresh_token, &grant.subject).await {
            Ok((token, renewed)) => {
                session.replace_token(token);
                grant = renewed;
            }
            Err(Failure::Refused(reason)) => {
                end(&session, &reason);
                return;
            }
            Err(Failure::Passing(reason)) => {
                if SystemTime::now() + RETRY_AFTER >= grant.expires {
                    end(&session, &reason);
                    return;
                }
                eprintln!(
                    "kube-atlas: refreshing {}'s ID token failed, trying again: {reason}",
                    session.identity.user
                );
                tokio::select! {
                    () = &mut ended => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}

fn end(session: &Session, reason: &str) {
    eprintln!(
        "kube-atlas: {}'s session ended: its ID token could not be renewed ({reason})",
        session.identity.user
    );
    session.end_now();
}

enum Failure {
    /// The issuer said no (the refresh token is revoked or expired, the user is gone).
    Refused(String),
    /// The issuer could not be asked; maybe the next try.
    Passing(String),
}

async fn refresh(
    oidc: &Oidc,
    refresh_token: &RefreshToken,
    subject: &str,
) -> Result<(BearerToken, Grant), Failure> {
    let client = oidc.client().await.map_err(Failure::Passing)?;
    let request = client
        .exchange_refresh_token(refresh_token)
        .map_err(|_| Failure::Refused("the issuer names no token endpoint".into()))?;
    let answer = request.request_async(oidc.http()).await.map_err(|error| {
        let reason = describe(&error);
        match error {
            RequestTokenError::Request(_) => Failure::Passing(reason),
            _ => Failure::Refused(reason),
        }
    })?;
    let id_token = answer
        .id_token()
        .ok_or_else(|| Failure::Refused("the refresh gave no new ID token".into()))?;
    // A refreshed ID token carries no nonce of this sign-in (OpenID Connect Core 12.2).
    let no_nonce = |_: Option<&Nonce>| Ok(());
    let claims = match id_token.claims(&client.id_token_verifier(), no_nonce) {
        Ok(claims) => claims,
        Err(error) => {
            // Maybe signed with a key rotated in since discovery: fetched again for the next
            // try, which comes before the token expires.
            oidc.forget_keys().await;
            let reason = format!("the refreshed ID token is not valid: {error}");
            return Err(Failure::Passing(reason));
        }
    };
    if claims.subject().as_str() != subject {
        return Err(Failure::Refused(
            "the refreshed ID token names another user".into(),
        ));
    }
    let token = BearerToken::parse(&id_token.to_string())
        .ok_or_else(|| Failure::Refused("the refreshed ID token cannot be sent".into()))?;
    // Issuers that rotate refresh tokens send a new one; others keep the old one valid.
    let next_refresh = answer
        .refresh_token()
        .cloned()
        .unwrap_or_else(|| refresh_token.clone());
    Ok((token, Grant::new(claims, Some(next_refresh))))
}

/// A token request's failure in words: the issuer's error code and description, never the
/// body it answered with (which may hold tokens).
pub fn describe<E: std::error::Error>(
    error: &RequestTokenError<E, StandardErrorResponse<CoreErrorResponseType>>,
) -> String {
    match error {
        RequestTokenError::ServerResponse(response) => match response.error_description() {
            Some(description) => format!("{}: {description}", response.error()),
            None => response.error().to_string(),
        },
        RequestTokenError::Request(inner) => format!("the issuer could not be asked: {inner}"),
        RequestTokenError::Parse(inner, _) => {
            format!("the issuer's answer does not parse ({})", inner.path())
        }
        RequestTokenError::Other(reason) => reason.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_refreshed_a_third_of_its_life_ahead_at_most_a_minute() {
        let issued = UNIX_EPOCH + Duration::from_secs(1_000);
        let short = refresh_at(issued, issued + Duration::from_secs(30));
        assert_eq!(short, issued + Duration::from_secs(20));
        let hour = refresh_at(issued, issued + Duration::from_secs(3600));
        assert_eq!(hour, issued + Duration::from_secs(3540));
        // Issued "after" it expires (clocks apart): refreshed at once.
        assert_eq!(refresh_at(issued, issued), issued);
    }
}
