//! What changed between two states, as a JSON Patch (RFC 6902): the `patch` of a `move` or
//! `takeback` event, which a client applies to the state it holds (`docs/api.md`, WebSocket).
//!
//! Only three operations are written: `add`, `remove` and `replace`, with JSON Pointer paths
//! (RFC 6901). Objects are compared key by key. Arrays keep what they share at both ends; in
//! between, the elements kept in order are found (a longest common subsequence) and the rest are
//! removed and added, unless that touches more than half the array, which is then replaced. A piece that moves in the
//! sorted `pieces` list is then one `remove` and one `add`, and a new action is one `add` at the
//! end of `actions`.

use serde_json::{Value, json};

/// Above this many element pairs, the middle of an array is not searched for common elements
/// (it is replaced whole): the search costs their product.
const MAX_PAIRS: usize = 64 * 64;

/// The operations that turn `from` into `to`, in order (empty when they are equal).
pub fn diff(from: &Value, to: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    let mut path = String::new();
    walk(from, to, &mut path, &mut ops);
    ops
}

fn walk(from: &Value, to: &Value, path: &mut String, ops: &mut Vec<Value>) {
    if from == to {
        return;
    }
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, old) in a {
                if !b.contains_key(k) {
                    ops.push(json!({"op": "remove", "path": child(path, k)}));
                } else {
                    let len = path.len();
                    push_token(path, k);
                    walk(old, &b[k], path, ops);
                    path.truncate(len);
                }
            }
            for (k, new) in b {
                if !a.contains_key(k) {
                    ops.push(json!({"op": "add", "path": child(path, k), "value": new}));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => match array(a, b, path) {
            Some(edits) => ops.extend(edits),
            None => ops.push(json!({"op": "replace", "path": path.as_str(), "value": to})),
        },
        _ => ops.push(json!({"op": "replace", "path": path.as_str(), "value": to})),
    }
}

/// `path` followed by the escaped token `key` (RFC 6901: `~` as `~0`, `/` as `~1`).
fn child(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    push_token(&mut out, key);
    out
}

/// Appends `/` and the escaped token `key` to `path`.
fn push_token(path: &mut String, key: &str) {
    path.push('/');
    if key.contains(['~', '/']) {
        path.push_str(&key.replace('~', "~0").replace('/', "~1"));
    } else {
        path.push_str(key);
    }
}

/// Element edits turning `a` into `b`: removals then additions, each index as the array is at
/// that point of the patch; `None` when they would touch more than half of `b` (the whole array
/// is then shorter, and cheaper to write: the list of legal actions changes with the side to
/// move).
fn array(a: &[Value], b: &[Value], path: &str) -> Option<Vec<Value>> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let rest = (a.len() - prefix).min(b.len() - prefix);
    let suffix = a.iter().rev().zip(b.iter().rev()).take(rest).take_while(|(x, y)| x == y).count();
    let (old, new) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (keep_old, keep_new) = kept(old, new, b.len());
    let changed = keep_old.iter().chain(&keep_new).filter(|k| !**k).count();
    if changed * 2 > b.len().max(1) {
        return None;
    }
    let mut ops = Vec::with_capacity(changed);
    // Removals from the back, so that the indices of those still to remove do not move.
    for i in (0..old.len()).rev().filter(|i| !keep_old[*i]) {
        ops.push(json!({"op": "remove", "path": format!("{path}/{}", prefix + i)}));
    }
    // What is left of the middle is the kept elements in order; each new element goes in at
    // its final index, from the front.
    for (j, value) in new.iter().enumerate().filter(|(j, _)| !keep_new[*j]) {
        ops.push(json!({"op": "add", "path": format!("{path}/{}", prefix + j), "value": value}));
    }
    Some(ops)
}

/// Which elements of the middles `old` and `new` stay. The usual cases go first: one element
/// moved (a piece in the sorted list of pieces), and too little in common to be worth a search
/// (the legal actions of the other side); then the longest common subsequence.
fn kept(old: &[Value], new: &[Value], total: usize) -> (Vec<bool>, Vec<bool>) {
    let (n, m) = (old.len(), new.len());
    if n == m && n > 0 {
        let mut keep = (vec![true; n], vec![true; m]);
        if old[1..] == new[..m - 1] {
            (keep.0[0], keep.1[m - 1]) = (false, false);
            return keep;
        }
        if old[..n - 1] == new[1..] {
            (keep.0[n - 1], keep.1[0]) = (false, false);
            return keep;
        }
    }
    let (ho, hn): (Vec<u64>, Vec<u64>) = (old.iter().map(hash_of).collect(), new.iter().map(hash_of).collect());
    // At most the elements found on both sides can stay.
    let olds: std::collections::HashSet<u64> = ho.iter().copied().collect();
    let shared = hn.iter().filter(|h| olds.contains(h)).count();
    if (n - shared.min(n)) + (m - shared) > total.max(1) / 2 {
        return (vec![false; n], vec![false; m]);
    }
    common(old, new, &ho, &hn)
}

/// A hash of a JSON value, for comparing elements quickly (equal values hash equally).
fn hash_of(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    fn feed(v: &Value, h: &mut std::hash::DefaultHasher) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => (2u8, n.to_string()).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(items) => {
                (4u8, items.len()).hash(h);
                items.iter().for_each(|i| feed(i, h));
            }
            Value::Object(map) => {
                (5u8, map.len()).hash(h);
                for (k, v) in map {
                    k.hash(h);
                    feed(v, h);
                }
            }
        }
    }
    let mut h = std::hash::DefaultHasher::new();
    feed(v, &mut h);
    h.finish()
}

/// Which elements of `old` and `new` belong to a longest common subsequence of the two (all
/// `false` when the search would be too costly). Elements are compared by hash in the search;
/// the pairs kept are equal for certain (a pair whose hashes collide is passed over).
fn common(old: &[Value], new: &[Value], ho: &[u64], hn: &[u64]) -> (Vec<bool>, Vec<bool>) {
    let (n, m) = (old.len(), new.len());
    let mut keep = (vec![false; n], vec![false; m]);
    if n == 0 || m == 0 || n * m > MAX_PAIRS {
        return keep;
    }
    // len[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut len = vec![0u16; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] =
                if ho[i] == hn[j] { len[at(i + 1, j + 1)] + 1 } else { len[at(i + 1, j)].max(len[at(i, j + 1)]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if ho[i] == hn[j] && old[i] == new[j] {
            keep.0[i] = true;
            keep.1[j] = true;
            i += 1;
            j += 1;
        } else if len[at(i + 1, j)] >= len[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variants;
    use serde_json::{Value, json};

    use super::diff;

    /// Applies `ops` with an independent implementation of RFC 6902 (the `json-patch` crate).
    fn applied(from: &Value, ops: &[Value]) -> Value {
        let patch: json_patch::Patch = serde_json::from_value(Value::Array(ops.to_vec())).expect("a valid JSON Patch");
        let mut doc = from.clone();
        json_patch::patch(&mut doc, &patch).expect("the patch applies");
        doc
    }

    fn check(from: Value, to: Value) -> Vec<Value> {
        let ops = diff(&from, &to);
        assert_eq!(applied(&from, &ops), to, "{from} -> {to}: {ops:?}");
        ops
    }

    #[test]
    fn equal_values_need_nothing() {
        assert!(check(json!({"a": [1, 2], "b": {"c": null}}), json!({"a": [1, 2], "b": {"c": null}})).is_empty());
    }

    #[test]
    fn keys_are_replaced_added_and_removed_and_escaped() {
        let ops = check(json!({"a": 1, "b/c": 2, "d~": 3}), json!({"a": 2, "b/c": 2, "e": 4}));
        assert!(ops.contains(&json!({"op": "replace", "path": "/a", "value": 2})));
        assert!(ops.contains(&json!({"op": "remove", "path": "/d~0"})));
        assert!(ops.contains(&json!({"op": "add", "path": "/e", "value": 4})));
        check(json!({"x/y": 1}), json!({"x/y": [1]}));
        check(json!({"k": null}), json!({"k": {"deep": [1, {"z": 2}]}}));
        check(json!([1, 2]), json!({"now": "an object"}));
    }

    #[test]
    fn arrays_keep_what_they_share() {
        let ops = check(json!({"l": ["a", "b", "c"]}), json!({"l": ["a", "b", "c", "d"]}));
        assert_eq!(ops, vec![json!({"op": "add", "path": "/l/3", "value": "d"})]);
        // A piece moving in a sorted list: one removal and one addition.
        let from = json!({"p": [{"s": "a1"}, {"s": "e2"}, {"s": "f2"}, {"s": "g2"}, {"s": "h2"}, {"s": "a8"}]});
        let to = json!({"p": [{"s": "a1"}, {"s": "f2"}, {"s": "g2"}, {"s": "h2"}, {"s": "e4"}, {"s": "a8"}]});
        assert_eq!(check(from, to).len(), 2);
        for (a, b) in [
            (json!([]), json!([1, 2, 3])),
            (json!([1, 2, 3]), json!([])),
            (json!([1, 2, 3, 4, 5]), json!([5, 4, 3, 2, 1])),
            (json!([1, 1, 2, 1]), json!([1, 2, 1, 1, 1])),
            (json!([[1], [2]]), json!([[1, 3], [2]])),
        ] {
            check(json!({"v": a}), json!({"v": b}));
        }
    }

    #[test]
    fn a_long_array_that_changes_everywhere_is_replaced_whole() {
        let a: Vec<u32> = (0..200).collect();
        let b: Vec<u32> = (0..200).map(|i| i * 7 % 200).collect();
        let ops = check(json!({"v": a}), json!({"v": b}));
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0]["op"], "replace");
    }

    /// Random games of every variant: every state follows from the one before by its patch, and
    /// the patches are much smaller than the states they lead to.
    #[test]
    fn every_move_of_random_games_is_its_patch() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for info in variants() {
            let (mut patch_bytes, mut state_bytes) = (0, 0);
            for game_no in 0..3 {
                let mut game = info.new_seeded_game(game_no);
                let mut before = serde_json::to_value(game.snapshot()).unwrap();
                for _ in 0..40 {
                    let legal = game.legal_actions();
                    if legal.is_empty() {
                        break;
                    }
                    game.play(&legal[(next() % legal.len() as u64) as usize]).unwrap();
                    let after = serde_json::to_value(game.snapshot()).unwrap();
                    let ops = check(before, after.clone());
                    patch_bytes += Value::Array(ops).to_string().len();
                    state_bytes += after.to_string().len();
                    before = after;
                }
            }
            // The list of legal actions, which changes with the side to move, is most of a patch;
            // where pieces can be bought or placed it holds every placement.
            let most = if info.id == "standard" { 0.3 } else { 0.7 };
            let share = patch_bytes as f64 / state_bytes as f64;
            // The figures of docs/benchmarks.md (`--nocapture` shows them).
            eprintln!("{}: {patch_bytes} bytes of patches for {state_bytes} of states ({share:.2})", info.id);
            assert!(share < most, "{}: patches {patch_bytes} bytes, states {state_bytes}", info.id);
        }
    }
}
