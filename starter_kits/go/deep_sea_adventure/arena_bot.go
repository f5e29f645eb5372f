// The Dive Arena bot SDK for Go (standard library only): the protocol loop over encoding/json.
//
//	func choose(observation map[string]any, legalActions []any, rng *rand.Rand) int {
//		return rng.Intn(len(legalActions))     // an index into legalActions
//	}
//	func main() { Run(choose) }
//
// The protocol (docs/writing-a-bot.md): one JSON object per line on stdin and stdout. Run answers
// "start" with "ready", each "act" with {"index": n}, and returns at "end". Write logs to os.Stderr
// (kept, capped, for you); never print anything else on stdout. JSON numbers arrive as float64.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
)

// Match describes the match while Run plays (filled in from the arena's messages).
type Match struct {
	Game       string
	Seat       int
	NumPlayers int
	Options    map[string]any
	Limits     map[string]any
	Step       int
	TimeLeftMs float64
	Result     map[string]any
}

// Current is the match being played.
var Current Match

// Run plays one match over stdin/stdout: choose(observation, legalActions, rng) returns an index
// into legalActions. It returns the final result (nil when the arena sent none).
func Run(choose func(observation map[string]any, legalActions []any, rng *rand.Rand) int) map[string]any {
	reader := bufio.NewReaderSize(os.Stdin, 1<<16)
	writer := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(0))
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return Current.Result
		}
		var message map[string]any
		if jsonErr := json.Unmarshal(line, &message); jsonErr != nil {
			panic(fmt.Sprintf("the arena sent invalid JSON: %v", jsonErr))
		}
		switch message["type"] {
		case "start":
			Current.Game, _ = message["game"].(string)
			seat, _ := message["seat"].(float64)
			players, _ := message["num_players"].(float64)
			Current.Seat, Current.NumPlayers = int(seat), int(players)
			Current.Options, _ = message["options"].(map[string]any)
			Current.Limits, _ = message["limits"].(map[string]any)
			if seed, ok := message["seed"].(float64); ok {
				rng = rand.New(rand.NewSource(int64(seed)))
			}
			writer.WriteString("{\"type\":\"ready\"}\n")
			writer.Flush()
		case "act":
			step, _ := message["step"].(float64)
			Current.Step = int(step)
			Current.TimeLeftMs, _ = message["time_left_ms"].(float64)
			observation, _ := message["observation"].(map[string]any)
			legal, _ := message["legal_actions"].([]any)
			fmt.Fprintf(writer, "{\"index\":%d}\n", choose(observation, legal, rng))
			writer.Flush()
		case "end":
			Current.Result, _ = message["result"].(map[string]any)
			return Current.Result
		}
	}
}
