//! Checked values of the service: parse once at the edge, then trust the type.

use std::fmt;

use secrecy::{ExposeSecret, SecretString};
use time::OffsetDateTime;

/// Milliseconds since the epoch, the unit of every time in the JSON the service sends.
pub fn unix_ms(at: OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

/// A user name: 2 to 20 characters of `A-Za-z0-9_-`. Unique ignoring case in the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserName(String);

/// Fewest characters of a user name.
pub const USERNAME_MIN: usize = 2;
/// Most characters of a user name.
pub const USERNAME_MAX: usize = 20;
/// Names no account may take, in any letter case: words of the API's routes that stand where a
/// name does (`/api/challenge/open`, `/api/challenge/ai`), and the names the site shows for
/// players without an account.
pub const RESERVED_NAMES: [&str; 6] = ["ai", "open", "anonymous", "guest", "computer", "api"];

/// Fewest characters of a password.
pub const PASSWORD_MIN: usize = 8;
/// Most characters of a password.
pub const PASSWORD_MAX: usize = 256;

impl UserName {
    /// Checks a name as typed.
    ///
    /// # Errors
    /// A sentence for the form, saying what is wrong.
    pub fn parse(text: &str) -> Result<UserName, String> {
        let n = text.chars().count();
        if n < USERNAME_MIN {
            return Err(format!("Choose a name of at least {USERNAME_MIN} characters."));
        }
        if n > USERNAME_MAX {
            return Err(format!("A name has at most {USERNAME_MAX} characters (this one has {n})."));
        }
        if let Some(bad) = text.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
            let shown = if bad.is_whitespace() { "a space".to_string() } else { format!("'{bad}'") };
            return Err(format!("Use only letters A-Z, digits, '_' and '-' (not {shown})."));
        }
        if RESERVED_NAMES.iter().any(|r| r.eq_ignore_ascii_case(text)) {
            return Err(format!("The name '{text}' is reserved: choose another."));
        }
        Ok(UserName(text.to_string()))
    }

    /// The name as typed at sign-up.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A new password that meets the length rules.
#[derive(Debug)]
pub struct NewPassword(SecretString);

impl NewPassword {
    /// Checks a password's length (in characters).
    ///
    /// # Errors
    /// A sentence for the form.
    pub fn parse(text: &str) -> Result<NewPassword, String> {
        let n = text.chars().count();
        if n < PASSWORD_MIN {
            return Err(format!("Use at least {PASSWORD_MIN} characters."));
        }
        if n > PASSWORD_MAX {
            return Err(format!("Use at most {PASSWORD_MAX} characters."));
        }
        Ok(NewPassword(SecretString::from(text.to_string())))
    }

    /// The password.
    pub fn secret(&self) -> &SecretString {
        &self.0
    }

    /// The password text.
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

/// The title of a BOT account, as lichess writes it (in the API's `title`, before the name on
/// the pages).
pub const BOT_TITLE: &str = "BOT";

/// A role of an account, in increasing power (`docs/moderation.md`, Roles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A player.
    User,
    /// A player who moderates: reports, sanctions, the mod log.
    Moderator,
    /// An operator: a moderator who also grants and revokes roles.
    Admin,
}

impl Role {
    /// Every role, weakest first.
    pub const ALL: [Role; 3] = [Role::User, Role::Moderator, Role::Admin];

    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    /// Reads the stored text.
    ///
    /// # Errors
    /// The unknown text.
    pub fn parse(text: &str) -> Result<Role, String> {
        Role::ALL.into_iter().find(|r| r.as_str() == text).ok_or_else(|| {
            format!(
                "unknown role '{other}' (user, moderator or admin)",
                other = text.chars().take(30).collect::<String>()
            )
        })
    }

    /// Whether the role may moderate (moderators and admins).
    pub fn moderates(self) -> bool {
        self >= Role::Moderator
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_allowed_length_and_alphabet_parse() {
        for ok in ["ab", "Magnus_Carlsen-1", "a-b_c", "ABCDEFGHIJKLMNOPQRST"] {
            assert_eq!(UserName::parse(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn bad_names_are_refused_with_a_reason() {
        assert!(UserName::parse("a").unwrap_err().contains("at least 2"));
        assert!(UserName::parse(&"x".repeat(21)).unwrap_err().contains("at most 20"));
        assert!(UserName::parse("bad name").unwrap_err().contains("a space"));
        assert!(UserName::parse("émile").unwrap_err().contains("'é'"));
        assert!(UserName::parse("").is_err());
        assert!(UserName::parse("a.b").is_err());
        for reserved in ["ai", "AI", "open", "Anonymous"] {
            assert!(UserName::parse(reserved).unwrap_err().contains("reserved"), "{reserved}");
        }
    }

    #[test]
    fn passwords_are_counted_in_characters() {
        assert!(NewPassword::parse("1234567").is_err());
        assert!(NewPassword::parse("12345678").is_ok());
        assert!(NewPassword::parse(&"é".repeat(256)).is_ok());
        assert!(NewPassword::parse(&"é".repeat(257)).is_err());
    }

    #[test]
    fn roles_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()).unwrap(), r);
        }
        assert!(Role::parse("root").is_err());
    }
}
