//! Accessibility: axe-core (vendored in `axe/`, see its README), run by the page walk of
//! `walk.rs` in every page kind. Any critical or serious violation fails the walk, listed with
//! its page, rule, help text and elements.

use super::*;

/// axe-core's browser build, unchanged (MPL-2.0, `axe/LICENSE`).
const AXE: &str = include_str!("axe/axe.min.js");

/// Runs axe on the page with the options in `arguments[0]` and answers its critical and serious
/// violations as `{id, impact, help, nodes: [target...]}`.
const RUN_AXE: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, Object.assign({ resultTypes: ["violations"] }, arguments[0]))
  .then((r) => done(r.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }))))
  .catch((e) => done({ error: String(e) }));"#;

/// Which of axe's rules a run applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rules {
    /// Every rule axe runs by default.
    All,
    /// Only the rules that read colours (text contrast, links told apart from text by colour):
    /// what a colour theme can change. The themes swap colour variables and nothing else, so
    /// the markup, names, roles and landmarks that the other rules check are the same.
    Colours,
}

impl Rules {
    fn options(self) -> Value {
        match self {
            Rules::All => json!({}),
            Rules::Colours => json!({"runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}}),
        }
    }
}

impl Browser {
    /// The page's critical and serious axe violations under `rules`, one readable line each.
    pub(super) async fn axe_violations(&self, label: &str, rules: Rules) -> Vec<String> {
        self.js(&format!("{AXE}\nreturn typeof axe;")).await;
        let found = self
            .client
            .execute_async(RUN_AXE, vec![rules.options()])
            .await
            .unwrap_or_else(|e| panic!("axe on {label}: {e}"));
        let list = found.as_array().unwrap_or_else(|| panic!("axe failed on {label}: {found}"));
        list.iter()
            .map(|v| {
                let nodes: Vec<&str> = v["nodes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                format!("{label}: {} ({}): {} [{}]", v["id"], v["impact"], v["help"], nodes.join(", "))
            })
            .collect()
    }
}
