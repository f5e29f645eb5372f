// Deep Sea Adventure starter bot in Go: dive for deeper treasure, turn back while the air allows.
//
// Play it locally (it is built in the sandbox first, then cached):
//
//	python -m workers.play deep_sea_adventure starter_kits/go/deep_sea_adventure builtin:random
//
// Upload main.go and arena_bot.go together as a zip (both at its root).
//
// How it decides (rules: docs/rules/deep_sea_adventure.md):
//   - observation["decision"] is "direction" (actions {"type": "continue"} / {"type": "turn_back"})
//     or "search" ({"type": "pass"}, {"type": "take"}, {"type": "drop", ...}).
//   - observation["divers"][observation["me"]] is my diver: "position" (0 = submarine),
//     "direction" ("down"/"up"), "carried" (my chips, their exact values unknown), "returned".
//   - observation["air"] is the shared air; every diver's carried chips use it up each turn.
//
// Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
package main

import (
	"math"
	"math/rand"
)

const carryLimit = 2 // chips to carry before heading home
const margin = 2.0   // extra turns of air kept in hand

// turnsHome is about how many turns it takes to get back from position carrying load chips.
func turnsHome(position float64, load int) float64 {
	return position / math.Max(0.5, 4.0-float64(load))
}

func divers(observation map[string]any) []any {
	list, _ := observation["divers"].([]any)
	return list
}

func me(observation map[string]any) map[string]any {
	index, _ := observation["me"].(float64)
	diver, _ := divers(observation)[int(index)].(map[string]any)
	return diver
}

func carried(diver map[string]any) int {
	chips, _ := diver["carried"].([]any)
	return len(chips)
}

// turnsOfAir is about how many of my turns the shared air still allows.
func turnsOfAir(observation map[string]any, load int) float64 {
	total := 0
	for _, d := range divers(observation) {
		diver, _ := d.(map[string]any)
		if returned, _ := diver["returned"].(bool); !returned {
			total += carried(diver)
		}
	}
	total += load - carried(me(observation))
	if total < 1 {
		total = 1
	}
	air, _ := observation["air"].(float64)
	return air / float64(total)
}

// find is the index of the first legal action of type kind, or -1.
func find(legal []any, kind string) int {
	for i, a := range legal {
		if action, _ := a.(map[string]any); action["type"] == kind {
			return i
		}
	}
	return -1
}

func orFirst(index int) int {
	if index < 0 {
		return 0
	}
	return index
}

func choose(observation map[string]any, legal []any, rng *rand.Rand) int {
	diver := me(observation)
	load := carried(diver)
	position, _ := diver["position"].(float64)
	if observation["decision"] == "direction" {
		if load == 0 {
			return orFirst(find(legal, "continue"))
		}
		goingHomeNow := turnsHome(position+4, load)+margin > turnsOfAir(observation, load)
		if load >= carryLimit || goingHomeNow {
			return orFirst(find(legal, "turn_back"))
		}
		return orFirst(find(legal, "continue"))
	}
	if take := find(legal, "take"); take >= 0 {
		affordable := turnsHome(position, load+1)+margin <= turnsOfAir(observation, load+1)
		limit := carryLimit
		if diver["direction"] == "up" {
			limit++
		}
		if load < limit && affordable {
			return take
		}
	}
	return orFirst(find(legal, "pass"))
}

func main() {
	Run(choose)
}
