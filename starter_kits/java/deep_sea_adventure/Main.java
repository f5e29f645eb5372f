// Deep Sea Adventure starter bot in Java: dive for deeper treasure, turn back while the air allows.
//
// Play it locally (it is built in the sandbox first, then cached):
//     python -m workers.play deep_sea_adventure starter_kits/java/deep_sea_adventure builtin:random
// Upload Main.java and ArenaBot.java together as a zip (both at its root).
//
// How it decides (rules: docs/rules/deep_sea_adventure.md):
// - observation "decision" is "direction" (actions {"type": "continue"} / {"type": "turn_back"})
//   or "search" ({"type": "pass"}, {"type": "take"}, {"type": "drop", ...}).
// - observation "divers"[observation "me"] is my diver: "position" (0 = submarine),
//   "direction" ("down"/"up"), "carried" (my chips, their exact values unknown), "returned".
// - observation "air" is the shared air; every diver's carried chips use it up each turn.
// Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
import java.util.List;
import java.util.Map;
import java.util.Random;

public class Main {
    static final int CARRY_LIMIT = 2;     // chips to carry before heading home
    static final double MARGIN = 2.0;     // extra turns of air kept in hand

    /** About how many turns it takes to get back from position carrying load chips. */
    static double turnsHome(double position, int load) {
        return position / Math.max(0.5, 4.0 - load);
    }

    static Map<String, Object> me(Map<String, Object> observation) {
        List<Object> divers = ArenaBot.list(observation.get("divers"));
        return ArenaBot.obj(divers.get((int) ArenaBot.num(observation.get("me"))));
    }

    /** About how many of my turns the shared air still allows. */
    static double turnsOfAir(Map<String, Object> observation, int load) {
        int carried = 0;
        for (Object d : ArenaBot.list(observation.get("divers"))) {
            Map<String, Object> diver = ArenaBot.obj(d);
            if (!ArenaBot.bool(diver.get("returned"))) carried += ArenaBot.list(diver.get("carried")).size();
        }
        carried += load - ArenaBot.list(me(observation).get("carried")).size();
        return ArenaBot.num(observation.get("air")) / Math.max(1, carried);
    }

    /** The index of the first legal action of type kind, or -1. */
    static int find(List<Object> legal, String kind) {
        for (int i = 0; i < legal.size(); i++)
            if (kind.equals(ArenaBot.obj(legal.get(i)).get("type"))) return i;
        return -1;
    }

    static int choose(Map<String, Object> observation, List<Object> legal, Random rng) {
        Map<String, Object> me = me(observation);
        int load = ArenaBot.list(me.get("carried")).size();
        double position = ArenaBot.num(me.get("position"));
        if ("direction".equals(observation.get("decision"))) {
            int goOn = Math.max(0, find(legal, "continue"));
            if (load == 0) return goOn;
            boolean goingHomeNow = turnsHome(position + 4, load) + MARGIN > turnsOfAir(observation, load);
            if (load >= CARRY_LIMIT || goingHomeNow) return Math.max(0, find(legal, "turn_back"));
            return goOn;
        }
        int take = find(legal, "take");
        if (take >= 0) {
            boolean affordable = turnsHome(position, load + 1) + MARGIN <= turnsOfAir(observation, load + 1);
            int limit = CARRY_LIMIT + ("up".equals(me.get("direction")) ? 1 : 0);
            if (load < limit && affordable) return take;
        }
        return Math.max(0, find(legal, "pass"));
    }

    public static void main(String[] args) throws Exception {
        ArenaBot.run(Main::choose);
    }
}
