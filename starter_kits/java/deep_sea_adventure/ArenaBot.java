// The Dive Arena bot SDK for Java 17 (standard library only): a small JSON reader and the protocol loop.
//
//     public class Main {
//         public static void main(String[] args) throws Exception {
//             ArenaBot.run((observation, legalActions, rng) -> rng.nextInt(legalActions.size()));
//         }
//     }
//
// JSON values are plain Java objects: Map<String, Object> (insertion order kept), List<Object>,
// String, Double, Boolean and null; ArenaBot.obj/list/str/num/bool read them without casts.
// The protocol (docs/writing-a-bot.md): one JSON object per line on stdin and stdout. run answers
// "start" with "ready", each "act" with {"index": n}, and returns at "end". Write logs to System.err
// (kept, capped, for you); never print anything else on System.out.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public final class ArenaBot {
    private ArenaBot() {}

    /** Chooses an index into legalActions. */
    public interface Chooser {
        int choose(Map<String, Object> observation, List<Object> legalActions, Random rng) throws Exception;
    }

    /** The match while run plays (filled in from the arena's messages). */
    public static String game = "";
    public static int seat;
    public static int numPlayers;
    public static Map<String, Object> options = new LinkedHashMap<>();
    public static Map<String, Object> limits = new LinkedHashMap<>();
    public static int step = -1;
    public static double timeLeftMs;
    public static Object result;

    /** Plays one match over stdin/stdout; returns the final result (null when the arena sent none). */
    public static Object run(Chooser chooser) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Random rng = new Random(0);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> message = obj(parse(line));
            Object type = message.get("type");
            if ("start".equals(type)) {
                game = str(message.get("game"));
                seat = (int) num(message.get("seat"));
                numPlayers = (int) num(message.get("num_players"));
                if (message.get("options") instanceof Map) options = obj(message.get("options"));
                if (message.get("limits") instanceof Map) limits = obj(message.get("limits"));
                if (message.get("seed") instanceof Double) rng = new Random((long) num(message.get("seed")));
                out.print("{\"type\":\"ready\"}\n");
                out.flush();
            } else if ("act".equals(type)) {
                step = (int) num(message.get("step"));
                timeLeftMs = message.get("time_left_ms") instanceof Double ? num(message.get("time_left_ms")) : 0;
                int index = chooser.choose(obj(message.get("observation")), list(message.get("legal_actions")), rng);
                out.print("{\"index\":" + index + "}\n");
                out.flush();
            } else if ("end".equals(type)) {
                result = message.get("result");
                return result;
            }
        }
        return result;
    }

    // --- reading values without casts ---------------------------------------------------------
    @SuppressWarnings("unchecked")
    public static Map<String, Object> obj(Object value) { return (Map<String, Object>) value; }
    @SuppressWarnings("unchecked")
    public static List<Object> list(Object value) { return (List<Object>) value; }
    public static String str(Object value) { return (String) value; }
    public static double num(Object value) { return (Double) value; }
    public static boolean bool(Object value) { return (Boolean) value; }

    // --- the JSON reader ----------------------------------------------------------------------
    /** Thrown for text that is not one valid JSON value. */
    public static final class JsonException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        JsonException(String message) { super(message); }
    }

    private static final int MAX_DEPTH = 512;

    /** The value of one JSON text. */
    public static Object parse(String text) {
        int[] pos = {0};
        Object value = value(text, pos, 0);
        space(text, pos);
        if (pos[0] != text.length()) throw error(pos, "unexpected text after the value");
        return value;
    }

    private static JsonException error(int[] pos, String why) {
        return new JsonException("invalid JSON at offset " + pos[0] + ": " + why);
    }

    private static void space(String text, int[] pos) {
        while (pos[0] < text.length()) {
            char c = text.charAt(pos[0]);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            pos[0]++;
        }
    }

    private static char peek(String text, int[] pos) {
        return pos[0] < text.length() ? text.charAt(pos[0]) : '\0';
    }

    private static Object literal(String text, int[] pos, String word, Object value) {
        if (!text.startsWith(word, pos[0])) throw error(pos, "expected " + word);
        pos[0] += word.length();
        return value;
    }

    private static Object value(String text, int[] pos, int depth) {
        if (depth > MAX_DEPTH) throw error(pos, "nested too deeply");
        space(text, pos);
        char c = peek(text, pos);
        switch (c) {
            case '{': {
                pos[0]++;
                Map<String, Object> members = new LinkedHashMap<>();
                space(text, pos);
                if (peek(text, pos) == '}') { pos[0]++; return members; }
                while (true) {
                    space(text, pos);
                    if (peek(text, pos) != '"') throw error(pos, "expected a member name");
                    String key = string(text, pos);
                    space(text, pos);
                    if (peek(text, pos) != ':') throw error(pos, "expected ':'");
                    pos[0]++;
                    members.put(key, value(text, pos, depth + 1));
                    space(text, pos);
                    char next = peek(text, pos);
                    pos[0]++;
                    if (next == '}') return members;
                    if (next != ',') { pos[0]--; throw error(pos, "expected ',' or '}'"); }
                }
            }
            case '[': {
                pos[0]++;
                List<Object> items = new ArrayList<>();
                space(text, pos);
                if (peek(text, pos) == ']') { pos[0]++; return items; }
                while (true) {
                    items.add(value(text, pos, depth + 1));
                    space(text, pos);
                    char next = peek(text, pos);
                    pos[0]++;
                    if (next == ']') return items;
                    if (next != ',') { pos[0]--; throw error(pos, "expected ',' or ']'"); }
                }
            }
            case '"': return string(text, pos);
            case 't': return literal(text, pos, "true", Boolean.TRUE);
            case 'f': return literal(text, pos, "false", Boolean.FALSE);
            case 'n': return literal(text, pos, "null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number(text, pos);
                throw error(pos, pos[0] >= text.length() ? "unexpected end" : "unexpected character");
        }
    }

    private static void digits(String text, int[] pos) {
        int start = pos[0];
        while (pos[0] < text.length() && Character.isDigit(text.charAt(pos[0])) && text.charAt(pos[0]) < 128) pos[0]++;
        if (pos[0] == start) throw error(pos, "expected a digit");
    }

    private static Double number(String text, int[] pos) {
        int start = pos[0];
        if (peek(text, pos) == '-') pos[0]++;
        if (peek(text, pos) == '0') pos[0]++;
        else digits(text, pos);
        if (peek(text, pos) == '.') { pos[0]++; digits(text, pos); }
        if (peek(text, pos) == 'e' || peek(text, pos) == 'E') {
            pos[0]++;
            if (peek(text, pos) == '+' || peek(text, pos) == '-') pos[0]++;
            digits(text, pos);
        }
        return Double.valueOf(text.substring(start, pos[0]));
    }

    private static int hex4(String text, int[] pos) {
        if (pos[0] + 4 > text.length()) throw error(pos, "bad \\u escape");
        int code = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos[0]), 16);
            if (digit < 0) throw error(pos, "bad \\u escape");
            code = code * 16 + digit;
            pos[0]++;
        }
        return code;
    }

    private static String string(String text, int[] pos) {
        pos[0]++; // the opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos[0] >= text.length()) throw error(pos, "unterminated string");
            char c = text.charAt(pos[0]++);
            if (c == '"') return out.toString();
            if (c < 0x20) { pos[0]--; throw error(pos, "control character in a string"); }
            if (c != '\\') { out.append(c); continue; }
            char e = peek(text, pos);
            pos[0]++;
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u': {
                    int code = hex4(text, pos);
                    if (code >= 0xD800 && code < 0xDC00) {
                        if (!text.startsWith("\\u", pos[0])) throw error(pos, "lone surrogate");
                        pos[0] += 2;
                        int low = hex4(text, pos);
                        if (low < 0xDC00 || low >= 0xE000) throw error(pos, "bad surrogate pair");
                        out.append((char) code).append((char) low);
                    } else if (code >= 0xDC00 && code < 0xE000) {
                        throw error(pos, "lone surrogate");
                    } else {
                        out.append((char) code);
                    }
                    break;
                }
                default: pos[0]--; throw error(pos, "bad escape");
            }
        }
    }
}
