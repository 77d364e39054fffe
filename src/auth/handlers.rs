//! The account pages: sign-up, log-in, log-out and password change.

use actix_session::Session;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use secrecy::SecretString;
use serde::Deserialize;

use super::csrf::CsrfForm;
use super::{CreateAccountError, create_account, current_user, log_in, log_out, password};
use crate::db;
use crate::db::sessions::AuthKind;
use crate::domain::{NewPassword, PASSWORD_MAX, Role, USERNAME_MAX, UserName};
use crate::error::PageError;
use crate::pages::{LoginPage, PageCtx, PasswordPage, SignupPage, render, render_status};
use crate::startup::{AppState, client_ip};

/// Where to go after logging in: a path of this site, never another site; anything else is `/`.
///
/// A path is one `/` followed by anything but a second `/` or `\`, written in printable ASCII
/// alone (percent-escapes stay escapes). Browsers drop tabs and line breaks from an address
/// and read `\` as `/`, so `/<tab>/evil.example` or `/\evil.example` would name another host;
/// a line break would also break the `Location` header.
fn safe_next(next: Option<&str>) -> String {
    let local = |n: &str| {
        let mut chars = n.chars();
        n.len() <= 512
            && chars.next() == Some('/')
            && !matches!(chars.next(), Some('/' | '\\'))
            && n.chars().all(|c| c.is_ascii_graphic() && c != '\\')
    };
    match next {
        Some(n) if local(n) => n.to_string(),
        _ => "/".to_string(),
    }
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, to.to_string())).finish()
}

/// The sign-up form's fields, as sent.
#[derive(Debug, Deserialize)]
pub struct SignupForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn signup_form(session: Session) -> Result<HttpResponse, PageError> {
    if current_user(&session).is_some() {
        return Ok(see_other("/"));
    }
    render(&SignupPage::blank(PageCtx::new(&session)?))
}

#[tracing::instrument(skip_all)]
pub(crate) async fn signup(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<SignupForm>,
) -> Result<HttpResponse, PageError> {
    let name = UserName::parse(&form.username);
    state.limiters.signup(client_ip(&req, state.trust_forwarded_for), name.as_ref().ok().map(UserName::as_str))?;
    let password = NewPassword::parse(&form.password);
    let mut page = SignupPage::blank(PageCtx::new(&session)?);
    page.username = form.username.chars().take(USERNAME_MAX * 4).collect();
    let (name, password) = match (name, password) {
        (Ok(n), Ok(p)) => (n, p),
        (n, p) => {
            page.username_error = n.err();
            page.password_error = p.err();
            return render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY);
        }
    };
    match create_account(&state.pool, &name, &password, Role::User).await {
        Ok(id) => {
            tracing::info!(user.id = %id, "account created");
            log_in(&state.pool, &session, id, name.as_str(), AuthKind::Signup).await?;
            Ok(see_other("/"))
        }
        Err(CreateAccountError::NameTaken(_)) => {
            page.username_error = Some("This name is taken (names are unique ignoring letter case).".into());
            render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY)
        }
        Err(CreateAccountError::Other(e)) => Err(PageError::Internal(e)),
    }
}

/// `?next=` of the log-in page.
#[derive(Debug, Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn login_form(session: Session, query: web::Query<NextQuery>) -> Result<HttpResponse, PageError> {
    if current_user(&session).is_some() {
        return Ok(see_other(&safe_next(query.next.as_deref())));
    }
    let mut page = LoginPage::blank(PageCtx::new(&session)?);
    page.next = safe_next(query.next.as_deref());
    render(&page)
}

/// The log-in form's fields, as sent.
#[derive(Debug, Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: Option<String>,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<LoginForm>,
) -> Result<HttpResponse, PageError> {
    let mut page = LoginPage::blank(PageCtx::new(&session)?);
    page.next = safe_next(form.next.as_deref());
    page.username = form.username.chars().take(USERNAME_MAX * 4).collect();
    let name = form.username.trim();
    if name.is_empty() {
        page.username_error = Some("Enter your user name.".into());
    }
    if form.password.is_empty() {
        page.password_error = Some("Enter your password.".into());
    }
    if name.chars().count() > USERNAME_MAX {
        page.username_error = Some(format!("A name has at most {USERNAME_MAX} characters."));
    }
    if form.password.chars().count() > PASSWORD_MAX {
        page.password_error = Some(format!("A password has at most {PASSWORD_MAX} characters."));
    }
    if page.username_error.is_some() || page.password_error.is_some() {
        return render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY);
    }
    state.limiters.login(client_ip(&req, state.trust_forwarded_for), name)?;
    let user = db::users::find_by_name(&state.pool, name).await?;
    let stored = user.as_ref().map(|u| u.password_hash.clone());
    let ok = password::verify(SecretString::from(form.password.clone()), stored).await?;
    match user {
        Some(user) if ok => {
            tracing::info!(user.id = %user.id, "logged in");
            log_in(&state.pool, &session, user.id, &user.username, AuthKind::Login).await?;
            Ok(see_other(&page.next))
        }
        _ => {
            page.form_error = Some("Wrong user name or password.".into());
            render_status(&page, actix_web::http::StatusCode::UNAUTHORIZED)
        }
    }
}

/// A form with only the CSRF token.
#[derive(Debug, Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    csrf_token: String,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn logout(
    state: web::Data<AppState>,
    session: Session,
    _checked: CsrfForm<TokenForm>,
) -> Result<HttpResponse, PageError> {
    let ended = current_user(&session).zip(super::current_session_id(&session));
    log_out(&session);
    // The sockets this session opened (in other tabs, on any instance) close too.
    if let Some((user, sid)) = ended {
        crate::notify::send(state.broker.as_ref(), user.id, &crate::notify::UserMsg::SignedOut { sessions: vec![sid] })
            .await;
    }
    Ok(see_other("/"))
}

#[tracing::instrument(skip_all)]
pub(crate) async fn password_form(session: Session) -> Result<HttpResponse, PageError> {
    if current_user(&session).is_none() {
        return Ok(see_other("/login?next=/account/password"));
    }
    render(&PasswordPage::blank(PageCtx::new(&session)?))
}

/// The password-change form's fields, as sent.
#[derive(Debug, Deserialize)]
pub struct PasswordForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    new_password: String,
}

crate::csrf_field!(LoginForm, PasswordForm, SignupForm, TokenForm);

#[tracing::instrument(skip_all)]
pub(crate) async fn change_password(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<PasswordForm>,
) -> Result<HttpResponse, PageError> {
    let Some(me) = current_user(&session) else {
        return Ok(see_other("/login?next=/account/password"));
    };
    let mut page = PasswordPage::blank(PageCtx::new(&session)?);
    let new = NewPassword::parse(&form.new_password);
    if form.current_password.is_empty() {
        page.current_error = Some("Enter your current password.".into());
    } else if form.current_password.chars().count() > PASSWORD_MAX {
        page.current_error = Some("This is not your current password.".into());
    }
    if let Err(e) = &new {
        page.new_error = Some(e.clone());
    }
    if page.current_error.is_some() || page.new_error.is_some() {
        return render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY);
    }
    let Some(user) = db::users::find_by_id(&state.pool, me.id).await? else {
        log_out(&session);
        return Ok(see_other("/login"));
    };
    let ok = password::verify(SecretString::from(form.current_password.clone()), Some(user.password_hash)).await?;
    if !ok {
        page.current_error = Some("This is not your current password.".into());
        return render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY);
    }
    let Ok(new) = new else {
        return render_status(&page, actix_web::http::StatusCode::UNPROCESSABLE_ENTITY);
    };
    let hash = password::hash(new.secret().clone()).await?;
    db::users::set_password_hash(&state.pool, user.id, &hash).await?;
    tracing::info!(user.id = %user.id, "password changed");
    // A new session key and id, as at log-in; every other session of the account ends.
    let before = super::current_session_id(&session);
    let kept = log_in(&state.pool, &session, user.id, &user.username, AuthKind::Password).await?;
    let mut ended = db::sessions::end_all_but(&state.pool, user.id, Some(kept)).await?;
    // This browser's own session goes on under its new id: its sockets stay.
    ended.retain(|sid| Some(*sid) != before);
    tracing::info!(user.id = %user.id, ended = ended.len(), "other sessions ended by a password change");
    crate::notify::send(state.broker.as_ref(), user.id, &crate::notify::UserMsg::SignedOut { sessions: ended }).await;
    let mut done = PasswordPage::blank(PageCtx::new(&session)?);
    done.done = true;
    render(&done)
}

#[cfg(test)]
mod tests {
    use super::safe_next;

    #[test]
    fn next_is_a_local_path() {
        for local in ["/", "/variant/standard", "/@/bob?page=2", "/game/new#friend", "/%09/evil.example", "/%2F%2Fevil"]
        {
            assert_eq!(safe_next(Some(local)), local, "{local:?} is a path of this site");
        }
        assert_eq!(safe_next(None), "/");
    }

    /// The known ways to make a "local" path name another site, or break the header.
    #[test]
    fn no_known_bypass_leaves_the_site() {
        let bypasses = [
            "//evil.example",
            "///evil.example",
            "https://evil.example",
            "http:/evil.example",
            "javascript:alert(1)",
            "evil.example",
            "",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "\t//evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/\r\nSet-Cookie: a=b",
            "/ /evil.example",
            " //evil.example",
            "/\u{0}/evil.example",
            "/\u{3000}/evil.example",
            "/\u{ff0f}evil.example",
        ];
        for bypass in bypasses {
            assert_eq!(safe_next(Some(bypass)), "/", "{bypass:?}");
        }
        assert_eq!(safe_next(Some(&format!("/{}", "a".repeat(600)))), "/", "over long");
    }
}
