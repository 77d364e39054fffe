//! Every SQL statement of the service. Callers pass a pool or a transaction and commit.

pub mod challenges;
pub mod games;
pub mod lobby;
pub mod profiles;
pub mod ratings;
pub mod sessions;
pub mod tokens;
pub mod users;

use anyhow::Context;
use secrecy::ExposeSecret;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::settings::DatabaseSettings;

/// Stores a type in a `text` column, by its `as_str()` and its `FromStr` (whose error says
/// what is wrong with a stored value that is not one of its names).
#[macro_export]
macro_rules! stored_as_text {
    ($t:ty) => {
        impl sqlx::Type<sqlx::Postgres> for $t {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <&str as sqlx::Type<sqlx::Postgres>>::type_info()
            }

            fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
                <&str as sqlx::Type<sqlx::Postgres>>::compatible(ty)
            }
        }

        impl sqlx::Encode<'_, sqlx::Postgres> for $t {
            fn encode_by_ref(
                &self,
                buf: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<sqlx::Postgres>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Postgres> for $t {
            fn decode(value: sqlx::postgres::PgValueRef<'r>) -> Result<$t, sqlx::error::BoxDynError> {
                let text = <&str as sqlx::Decode<sqlx::Postgres>>::decode(value)?;
                Ok(text.parse::<$t>()?)
            }
        }
    };
}

/// The migrations in `migrations/`, embedded at build time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Connection options from the configured URL.
///
/// # Errors
/// A malformed URL.
pub fn connect_options(settings: &DatabaseSettings) -> anyhow::Result<PgConnectOptions> {
    settings.url.expose_secret().parse::<PgConnectOptions>().context("database.url is not a PostgreSQL URL")
}

/// A pool that connects on first use.
///
/// # Errors
/// A malformed URL.
pub fn pool(settings: &DatabaseSettings) -> anyhow::Result<PgPool> {
    Ok(PgPoolOptions::new()
        .max_connections(settings.max_connections)
        .acquire_timeout(settings.acquire_timeout())
        // A connection that was just used is known to work: checking it again before every
        // transaction cost a round trip per move. One idle for a while (over an outage, say) is
        // pinged before it is handed out, and a dead one is replaced.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for < IDLE_BEFORE_PING {
                    return Ok(true);
                }
                Ok(sqlx::Connection::ping(conn).await.is_ok())
            })
        })
        .connect_lazy_with(connect_options(settings)?))
}

/// A pooled connection idle longer than this is pinged before it is handed out.
const IDLE_BEFORE_PING: std::time::Duration = std::time::Duration::from_secs(1);

/// Applies the pending migrations.
///
/// # Errors
/// The database cannot be reached or a migration fails.
pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR.run(pool).await.context("applying the database migrations")
}

/// Whether the database answers a trivial query.
///
/// # Errors
/// The database does not answer.
pub async fn ping(pool: &PgPool) -> anyhow::Result<()> {
    sqlx::query_scalar!("SELECT 1 AS \"one!\"").fetch_one(pool).await.context("pinging the database")?;
    Ok(())
}

/// Whether a database name is plain (`[a-z0-9_]`, 1-63 bytes), so it can be spliced into DDL.
fn plain_name(name: &str) -> anyhow::Result<()> {
    if name.is_empty()
        || name.len() > 63
        || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        anyhow::bail!("'{name}' is not a plain database name");
    }
    Ok(())
}

/// Creates a database on the server of `server` (used by `scripts/run` setups and the tests).
///
/// # Errors
/// A name that is not plain, an unreachable server or a failing statement.
pub async fn create_database(server: &PgConnectOptions, name: &str) -> anyhow::Result<()> {
    use sqlx::{ConnectOptions, Connection};
    plain_name(name)?;
    let mut conn = server.connect().await.context("connecting to the PostgreSQL server")?;
    sqlx::query(sqlx::AssertSqlSafe(format!(r#"CREATE DATABASE "{name}""#)))
        .execute(&mut conn)
        .await
        .with_context(|| format!("creating database {name}"))?;
    conn.close().await.context("closing the connection")?;
    Ok(())
}

/// The databases whose names start with `prefix` (a plain name).
///
/// # Errors
/// A prefix that is not plain, an unreachable server or a failing query.
pub async fn databases_with_prefix(server: &PgConnectOptions, prefix: &str) -> anyhow::Result<Vec<String>> {
    use sqlx::{ConnectOptions, Connection};
    plain_name(prefix)?;
    let mut conn = server.connect().await.context("connecting to the PostgreSQL server")?;
    let names =
        sqlx::query_scalar!(r#"SELECT datname AS "name!" FROM pg_database WHERE starts_with(datname, $1)"#, prefix)
            .fetch_all(&mut conn)
            .await
            .context("listing databases")?;
    conn.close().await.context("closing the connection")?;
    Ok(names)
}

/// Drops a database (a plain name), closing its connections: cleanup of test runs.
///
/// # Errors
/// A name that is not plain, an unreachable server or a failing statement.
pub async fn drop_database(server: &PgConnectOptions, name: &str) -> anyhow::Result<()> {
    use sqlx::{ConnectOptions, Connection};
    plain_name(name)?;
    let mut conn = server.connect().await.context("connecting to the PostgreSQL server")?;
    sqlx::query(sqlx::AssertSqlSafe(format!(r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#)))
        .execute(&mut conn)
        .await
        .with_context(|| format!("dropping database {name}"))?;
    conn.close().await.context("closing the connection")?;
    Ok(())
}
