//! Deep Sea Adventure starter bot in Rust: dive for deeper treasure, turn back while the air allows.
//!
//! Play it locally (it is built in the sandbox first, then cached):
//!     python -m workers.play deep_sea_adventure starter_kits/rust/deep_sea_adventure builtin:random
//! Upload main.rs and arena_bot.rs together as a zip (both at its root).
//!
//! How it decides (rules: docs/rules/deep_sea_adventure.md):
//! - observation "decision" is "direction" (actions {"type": "continue"} / {"type": "turn_back"})
//!   or "search" ({"type": "pass"}, {"type": "take"}, {"type": "drop", ...}).
//! - observation "divers"[observation "me"] is my diver: "position" (0 = submarine),
//!   "direction" ("down"/"up"), "carried" (my chips, their exact values unknown), "returned".
//! - observation "air" is the shared air; every diver's carried chips use it up each turn.
//! Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
mod arena_bot;

use arena_bot::{Json, Rng};

const CARRY_LIMIT: usize = 2; // chips to carry before heading home
const MARGIN: f64 = 2.0; // extra turns of air kept in hand

/// About how many turns it takes to get back from `position` carrying `load` chips.
fn turns_home(position: f64, load: usize) -> f64 {
    position / f64::max(0.5, 4.0 - load as f64)
}

/// About how many of my turns the shared air still allows.
fn turns_of_air(observation: &Json, load: usize) -> f64 {
    let divers = observation.get("divers");
    let mut carried: i64 = 0;
    for diver in divers.items() {
        if diver.get("returned").as_bool() != Some(true) {
            carried += diver.get("carried").len() as i64;
        }
    }
    let me = divers.at(observation.get("me").as_i64().unwrap_or(0) as usize);
    carried += load as i64 - me.get("carried").len() as i64;
    observation.get("air").as_f64().unwrap_or(0.0) / carried.max(1) as f64
}

/// The index of the first legal action of type `kind`.
fn find(legal: &Json, kind: &str) -> Option<usize> {
    legal.items().iter().position(|action| action.get("type").as_str() == Some(kind))
}

fn choose(observation: &Json, legal: &Json, _rng: &mut Rng) -> usize {
    let me = observation.get("divers").at(observation.get("me").as_i64().unwrap_or(0) as usize);
    let load = me.get("carried").len();
    let position = me.get("position").as_f64().unwrap_or(0.0);
    if observation.get("decision").as_str() == Some("direction") {
        let go_on = find(legal, "continue").unwrap_or(0);
        if load == 0 {
            return go_on;
        }
        let going_home_now = turns_home(position + 4.0, load) + MARGIN > turns_of_air(observation, load);
        if load >= CARRY_LIMIT || going_home_now {
            return find(legal, "turn_back").unwrap_or(0);
        }
        return go_on;
    }
    if let Some(take) = find(legal, "take") {
        let affordable = turns_home(position, load + 1) + MARGIN <= turns_of_air(observation, load + 1);
        let limit = CARRY_LIMIT + usize::from(me.get("direction").as_str() == Some("up"));
        if load < limit && affordable {
            return take;
        }
    }
    find(legal, "pass").unwrap_or(0)
}

fn main() {
    arena_bot::run(choose);
}
