//! The operator commands: `serve`, `migrate`, `user create`, `user role`.

use std::io::Read;

use anyhow::Context;

use crate::auth::{CreateAccountError, create_account};
use crate::domain::{NewPassword, Role, UserName};
use crate::settings::Settings;
use crate::startup::Application;
use crate::{db, telemetry};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

/// `chessgold serve`: runs the web service until SIGTERM or Ctrl-C.
///
/// # Errors
/// Bad settings or a failure to start.
pub fn serve() -> anyhow::Result<()> {
    let settings = Settings::load()?;
    telemetry::init(&settings.log);
    runtime()?.block_on(async move {
        let app = Application::build(settings).await?;
        eprintln!("Chess Gold is listening on port {}", app.port());
        app.run_until_stopped().await.context("serving")?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// `chessgold migrate`: applies the pending migrations.
///
/// # Errors
/// Bad settings, an unreachable database or a failed migration.
pub fn migrate() -> anyhow::Result<()> {
    let settings = Settings::load()?;
    telemetry::init(&settings.log);
    runtime()?.block_on(async move {
        let pool = db::pool(&settings.database)?;
        db::migrate(&pool).await?;
        eprintln!("migrations applied");
        Ok(())
    })
}

/// `chessgold health [--url URL]`: asks `/healthz` (by default on 127.0.0.1 at the configured
/// port) and succeeds only on 200.
///
/// # Errors
/// Bad settings (when no URL is given), no answer in time, or an answer other than 200.
pub fn health(url: Option<&str>, timeout_secs: u64) -> anyhow::Result<()> {
    let url = match url {
        Some(url) => url.to_string(),
        None => format!("http://127.0.0.1:{}/healthz", Settings::load()?.application.port),
    };
    runtime()?.block_on(async move {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(timeout_secs.max(1)))
            .build()
            .context("making the HTTP client")?;
        let response = client.get(&url).send().await.with_context(|| format!("asking {url}"))?;
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        anyhow::ensure!(status == reqwest::StatusCode::OK, "{url} answered {status}: {}", body.trim());
        println!("{}", body.trim());
        Ok(())
    })
}

/// Reads a password from standard input: all of it, without one final line ending.
///
/// # Errors
/// Standard input cannot be read or is not UTF-8.
pub fn read_password(mut input: impl Read) -> anyhow::Result<String> {
    let mut text = String::new();
    input.read_to_string(&mut text).context("reading the password from standard input")?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}

/// `chessgold user create NAME --password-stdin [--role admin]`.
///
/// # Errors
/// An invalid name or password, a taken name, or a database failure.
pub fn create_user(name: &str, password: &str, role: Role) -> anyhow::Result<()> {
    let name = UserName::parse(name).map_err(|e| anyhow::anyhow!("invalid user name: {e}"))?;
    let password = NewPassword::parse(password).map_err(|e| anyhow::anyhow!("invalid password: {e}"))?;
    let settings = Settings::load()?;
    telemetry::init(&settings.log);
    runtime()?.block_on(async move {
        let pool = db::pool(&settings.database)?;
        db::migrate(&pool).await?;
        match create_account(&pool, &name, &password, role).await {
            Ok(id) => {
                println!("created {} '{name}' ({id})", role.as_str());
                Ok(())
            }
            Err(CreateAccountError::NameTaken(n)) => {
                anyhow::bail!("the name '{n}' is taken (names are unique ignoring letter case)")
            }
            Err(CreateAccountError::Other(e)) => Err(e),
        }
    })
}

/// `chessgold user role NAME ROLE [--reason TEXT]`: one mod-log row, by the command line.
///
/// # Errors
/// An empty reason, an unknown account, no change, or a database failure.
pub fn set_role(name: &str, role: Role, reason: &str) -> anyhow::Result<()> {
    let reason = crate::moderation::Reason::parse(reason).map_err(|e| anyhow::anyhow!(e))?;
    let settings = Settings::load()?;
    telemetry::init(&settings.log);
    runtime()?.block_on(async move {
        let pool = db::pool(&settings.database)?;
        db::migrate(&pool).await?;
        let change = crate::moderation::roles::set_role(&pool, None, name, role, &reason).await?;
        println!("{} is now {} (was {})", change.name, change.to, change.from);
        Ok(())
    })
}

/// `chessgold token create USERNAME NAME [--scopes ...]`: prints the new token once.
///
/// # Errors
/// An unknown account or scope, an empty name, or a database failure.
pub fn create_token(username: &str, name: &str, scopes: &str) -> anyhow::Result<()> {
    let scopes = crate::api::auth::parse_scopes(scopes).map_err(|e| anyhow::anyhow!(e))?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        anyhow::bail!("the token's name is 1 to 100 characters");
    }
    let settings = Settings::load()?;
    telemetry::init(&settings.log);
    runtime()?.block_on(async move {
        let pool = db::pool(&settings.database)?;
        db::migrate(&pool).await?;
        let user = db::users::find_by_name(&pool, username)
            .await?
            .ok_or_else(|| anyhow::anyhow!("no account named '{username}'"))?;
        let (token, hash) = crate::api::auth::new_token()?;
        db::tokens::insert(&pool, user.id, name, &scopes, &hash).await?;
        println!("{token}");
        eprintln!(
            "token '{name}' for {} with scopes [{}]: keep it now, it is not shown again",
            user.username,
            scopes.join(", ")
        );
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::read_password;

    #[test]
    fn one_line_ending_is_dropped() {
        assert_eq!(read_password("secret pw\n".as_bytes()).unwrap(), "secret pw");
        assert_eq!(read_password("secret pw\r\n".as_bytes()).unwrap(), "secret pw");
        assert_eq!(read_password("secret pw".as_bytes()).unwrap(), "secret pw");
        assert_eq!(read_password("a\n\n".as_bytes()).unwrap(), "a\n");
    }
}
