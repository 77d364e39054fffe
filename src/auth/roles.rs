//! The extractors of the moderators' pages: [`Moderator`] and [`Admin`], the signed-in account
//! holding the role. The role is read from the database on every request, so a revoked moderator
//! loses the pages at once, on every instance. A guest is sent to the log-in page (with `next`
//! set to the page asked for); a signed-in account without the role gets a 403 page.

use actix_web::http::header;
use actix_web::{HttpResponse, web};
use uuid::Uuid;

use crate::auth::csrf::{CsrfField, CsrfForm};
use crate::auth::current_user;
use crate::domain::Role;
use crate::error::PageError;
use crate::moderation::roles::role_of;
use crate::startup::AppState;

/// A signed-in account with the role `moderator` or `admin`.
#[derive(Debug, Clone)]
pub struct Moderator {
    /// The account.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// Its role (`moderator` or `admin`).
    pub role: Role,
}

/// A signed-in account with the role `admin`.
#[derive(Debug, Clone)]
pub struct Admin(pub Moderator);

/// The login redirect of a guest asking for `req`'s page.
fn login_first(req: &actix_web::HttpRequest) -> actix_web::Error {
    let path = req.uri().path_and_query().map_or_else(|| req.path().to_string(), ToString::to_string);
    let query = serde_urlencoded::to_string([("next", path)]).unwrap_or_default();
    let resp = HttpResponse::SeeOther().insert_header((header::LOCATION, format!("/login?{query}"))).finish();
    actix_web::error::InternalError::from_response("sign in first", resp).into()
}

async fn signed_in_with(req: actix_web::HttpRequest, needed: Role) -> Result<Moderator, actix_web::Error> {
    let session = actix_session::SessionExt::get_session(&req);
    let Some(user) = current_user(&session) else { return Err(login_first(&req)) };
    let state =
        req.app_data::<web::Data<AppState>>().ok_or_else(|| PageError::Internal(anyhow::anyhow!("no state")))?;
    let role = role_of(&state.pool, user.id).await.map_err(PageError::Internal)?;
    match role {
        Some(role) if role >= needed => Ok(Moderator { id: user.id, name: user.name, role }),
        _ => Err(PageError::Forbidden.into()),
    }
}

type Pending<T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, actix_web::Error>>>>;

impl actix_web::FromRequest for Moderator {
    type Error = actix_web::Error;
    type Future = Pending<Self>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        Box::pin(signed_in_with(req.clone(), Role::Moderator))
    }
}

impl actix_web::FromRequest for Admin {
    type Error = actix_web::Error;
    type Future = Pending<Self>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { signed_in_with(req, Role::Admin).await.map(Admin) })
    }
}

/// A moderator's posted form: the role is checked first (a player is refused with 403 whatever
/// the form holds), then the form and its CSRF token as [`CsrfForm`] checks them.
#[derive(Debug)]
pub struct ModForm<T> {
    /// The moderator.
    pub by: Moderator,
    /// The form.
    pub form: T,
}

/// An admin's posted form: as [`ModForm`], for the admin's role.
#[derive(Debug)]
pub struct AdminForm<T> {
    /// The admin.
    pub by: Admin,
    /// The form.
    pub form: T,
}

impl<T: serde::de::DeserializeOwned + CsrfField + 'static> actix_web::FromRequest for ModForm<T> {
    type Error = actix_web::Error;
    type Future = Pending<Self>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let (req, mut payload) = (req.clone(), payload.take());
        Box::pin(async move {
            let by = signed_in_with(req.clone(), Role::Moderator).await?;
            let form = CsrfForm::<T>::from_request(&req, &mut payload).await?.into_inner();
            Ok(ModForm { by, form })
        })
    }
}

impl<T: serde::de::DeserializeOwned + CsrfField + 'static> actix_web::FromRequest for AdminForm<T> {
    type Error = actix_web::Error;
    type Future = Pending<Self>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let (req, mut payload) = (req.clone(), payload.take());
        Box::pin(async move {
            let by = Admin(signed_in_with(req.clone(), Role::Admin).await?);
            let form = CsrfForm::<T>::from_request(&req, &mut payload).await?.into_inner();
            Ok(AdminForm { by, form })
        })
    }
}
