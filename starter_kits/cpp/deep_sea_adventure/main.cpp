// Deep Sea Adventure starter bot in C++: dive for deeper treasure, turn back while the air allows.
//
// Play it locally (it is built in the sandbox first, then cached):
//     python -m workers.play deep_sea_adventure starter_kits/cpp/deep_sea_adventure builtin:random
// Upload main.cpp and arena_bot.hpp together as a zip (both at its root).
//
// How it decides (rules: docs/rules/deep_sea_adventure.md):
// - observation["decision"] is "direction" (actions {"type": "continue"} / {"type": "turn_back"})
//   or "search" ({"type": "pass"}, {"type": "take"}, {"type": "drop", ...}).
// - observation["divers"][observation["me"]] is my diver: "position" (0 = submarine),
//   "direction" ("down"/"up"), "carried" (my chips, their exact values unknown), "returned".
// - observation["air"] is the shared air; every diver's carried chips use it up each turn.
// Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
#include <algorithm>
#include <string>

#include "arena_bot.hpp"

using arena::Json;

constexpr int kCarryLimit = 2;     // chips to carry before heading home
constexpr double kMargin = 2.0;    // extra turns of air kept in hand

// About how many turns it takes to get back from `position` carrying `load` chips.
double turns_home(double position, int load) { return position / std::max(0.5, 4.0 - load); }

// About how many of my turns the shared air still allows.
double turns_of_air(const Json& observation, int load) {
    const Json& divers = observation["divers"];
    long long carried = 0;
    for (const Json& diver : divers.items())
        if (!diver["returned"].as_bool()) carried += static_cast<long long>(diver["carried"].size());
    carried += load - static_cast<long long>(divers[observation["me"].as_int()]["carried"].size());
    return observation["air"].as_number() / std::max<long long>(1, carried);
}

// The index of the first legal action of type `type`, or -1.
int find(const Json& legal, const std::string& type) {
    for (std::size_t i = 0; i < legal.size(); ++i)
        if (legal[i]["type"].as_string() == type) return static_cast<int>(i);
    return -1;
}

int choose(const Json& observation, const Json& legal, arena::Rng&) {
    const Json& me = observation["divers"][observation["me"].as_int()];
    int load = static_cast<int>(me["carried"].size());
    double position = me["position"].as_number();
    if (observation["decision"].as_string() == "direction") {
        int go_on = std::max(0, find(legal, "continue"));
        if (load == 0) return go_on;
        bool going_home_now = turns_home(position + 4, load) + kMargin > turns_of_air(observation, load);
        if (load >= kCarryLimit || going_home_now) return std::max(0, find(legal, "turn_back"));
        return go_on;
    }
    int take = find(legal, "take");
    if (take >= 0) {
        bool affordable = turns_home(position, load + 1) + kMargin <= turns_of_air(observation, load + 1);
        int limit = kCarryLimit + (me["direction"].as_string() == "up" ? 1 : 0);
        if (load < limit && affordable) return take;
    }
    int pass = find(legal, "pass");
    return pass >= 0 ? pass : 0;
}

int main() { return arena::run(choose); }
