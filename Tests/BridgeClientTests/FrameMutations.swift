import BridgeProtocol
import Foundation

/// Hostile variants of every server frame a client receives, as the server side's fuzz
/// (`Tests/integration/test_hostile.py`: every field of every kind, one at a time, set to each bad value, and the
/// kind itself) does for the client's frames: each member of each sample (nested ones too) replaced by a value
/// that is huge, negative, not a number JSON allows, of the wrong type, or removed.
enum FrameMutations {
    /// One frame to send.
    struct Case: Sendable {
        /// The sample it came from (its kind).
        var sample: String
        /// The member changed, e.g. `.expiresAt` or `.threads[0].updatedAt`; `.kind` for the kind itself.
        var path: String
        /// What it became: a raw JSON token (or not even JSON, `NaN`), or `removed`.
        var value: String
        var text: String
    }

    /// A valid frame of every kind a server sends (responses: the ones a client or a relay acts on).
    static let samples: [(name: String, json: String)] = [
        (
            "helloAck",
            #"{"kind":"helloAck","version":1,"ok":true,"versions":[1],"server":{"id":"SRV","name":"n","version":"1"},"deviceId":"d","lastSeq":5,"resume":"ok","restoredSubscriptions":["*"],"policy":{"roots":["/r"],"sandboxes":["read-only"],"defaultSandbox":"read-only","approvalPolicies":["on-request"],"defaultApprovalPolicy":"on-request"},"scopes":["observe","operate"],"machines":[{"id":"m","name":"n","state":"online"}]}"#
        ),
        ("pairingPending", #"{"kind":"pairingPending","deviceId":"d","check":"0427","expiresAt":EXPIRES}"#),
        ("pong", #"{"kind":"pong","nonce":"n"}"#),
        ("error", #"{"kind":"error","id":"nobody","code":"not_found","message":"m","scope":"operate","machine":"m"}"#),
        ("event", #"{"kind":"event","seq":7,"threadId":"t","turnId":"u","type":"item/agentMessage/delta","data":{"delta":"x","n":[1,2]}}"#),
        (
            "approvalRequest",
            #"{"kind":"approvalRequest","seq":8,"approvalId":"a","threadId":"t","turnId":"u","itemId":"i","type":"commandExecution","command":"ls","cwd":"/r","reason":"r","changes":{"f":1}}"#
        ),
        (
            "approvalResolved",
            #"{"kind":"approvalResolved","seq":9,"approvalId":"a","threadId":"t","decision":"accept","deviceId":"d","answeredElsewhere":false,"deviceName":"p","at":1800000000}"#
        ),
        (
            "inputRequest",
            #"{"kind":"inputRequest","seq":10,"requestId":"q","threadId":"t","turnId":"u","itemId":"i","type":"userInput","questions":[{"id":"1"}],"message":"m","url":"https://x","serverName":"s"}"#
        ),
        (
            "inputResolved",
            #"{"kind":"inputResolved","seq":11,"requestId":"q","threadId":"t","action":"accept","deviceId":"d","at":1800000000,"answers":{"1":["a"]}}"#
        ),
        (
            "messageQueued",
            #"{"kind":"messageQueued","seq":12,"threadId":"t","queuedId":"m","text":"x","model":"g","attachments":["u"],"deviceId":"d"}"#
        ),
        ("messageUnqueued", #"{"kind":"messageUnqueued","seq":13,"threadId":"t","queuedId":"m","reason":"started","turnId":"u"}"#),
        ("queueChanged", #"{"kind":"queueChanged","seq":14,"threadId":"t","items":[{"queuedId":"m","text":"x"}]}"#),
        ("commandStarted", #"{"kind":"commandStarted","seq":15,"threadId":"t","runId":"r","command":"ls","cwd":"/r","deviceId":"d"}"#),
        ("commandOutput", #"{"kind":"commandOutput","seq":16,"threadId":"t","runId":"r","data":"out"}"#),
        ("commandExited", #"{"kind":"commandExited","seq":17,"threadId":"t","runId":"r","exitCode":0,"reason":"x","truncated":false}"#),
        ("scopesChanged", #"{"kind":"scopesChanged","scopes":["observe"]}"#),
        ("scopeRequestEnded", #"{"kind":"scopeRequestEnded","scopes":["operate"],"check":"1234","outcome":"denied"}"#),
        ("machineChanged", #"{"kind":"machineChanged","machine":{"id":"m","name":"n","state":"offline"},"removed":true}"#),
        (
            "threads",
            #"{"kind":"threads","id":"nobody","threads":[{"threadId":"t","updatedAt":1800000000.5,"goal":{"objective":"o","status":"active","tokenBudget":5,"tokensUsed":1,"timeUsedSeconds":2,"updatedAt":3},"machine":{"id":"m","name":"n"}}],"nextCursor":"c"}"#
        ),
        ("subscribed", #"{"kind":"subscribed","id":"nobody","threadId":"t","resume":"ok","lastSeq":4}"#),
        ("threadStarted", #"{"kind":"threadStarted","id":"nobody","threadId":"t","turnId":"u","cwd":"/r"}"#),
        ("accepted", #"{"kind":"accepted","id":"nobody","threadId":"t","turnId":"u"}"#),
    ]

    /// What each member becomes in turn: out of every integer range, not finite, not JSON at all (`NaN`,
    /// `Infinity`), negative, fractional, and every other JSON type.
    static let values: [String] = [
        "1e300", "-1e300", "1e400", "-1e400", "-1", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
        "18446744073709551616", "0.5", "NaN", "Infinity", #""x""#, #""""#, "true", "null", "[]", "{}", "[1]", #"{"a":1}"#,
    ]

    /// The sample's text, its `expiresAt` a minute from now.
    static func sample(_ json: String) -> String {
        json.replacingOccurrences(of: "EXPIRES", with: String(Int(Date().timeIntervalSince1970) + 60))
    }

    /// Every variant of every sample.
    static func all() -> [Case] {
        var cases: [Case] = []
        for (name, json) in samples {
            let text = sample(json)
            guard let value = try? JSONValue(parsing: Data(text.utf8)) else { preconditionFailure("bad sample \(name)") }
            for path in paths(in: value) {
                let shown = path.map { step in step.index.map { "[\($0)]" } ?? ".\(step.key ?? "")" }.joined()
                for raw in values {
                    cases.append(Case(sample: name, path: shown, value: raw, text: render(value, path[...], raw)))
                }
                if path.last?.key != nil {
                    cases.append(Case(sample: name, path: shown, value: "removed", text: render(value, path[...], nil)))
                }
            }
        }
        return cases
    }

    struct Step: Hashable {
        var key: String?
        var index: Int?
    }

    /// Every member's path (an array's first element stands for all).
    static func paths(in value: JSONValue, prefix: [Step] = []) -> [[Step]] {
        switch value {
        case .object(let members):
            return members.keys.sorted().flatMap { key in
                let path = prefix + [Step(key: key)]
                return [path] + paths(in: members[key]!, prefix: path)
            }
        case .array(let elements):
            guard let first = elements.first else { return [] }
            let path = prefix + [Step(index: 0)]
            return [path] + paths(in: first, prefix: path)
        default:
            return []
        }
    }

    /// `value` as JSON text with the member at `path` written as `raw` (nil: left out).
    static func render(_ value: JSONValue, _ path: ArraySlice<Step>, _ raw: String?) -> String {
        guard let step = path.first else { return raw ?? "null" }
        switch value {
        case .object(let members):
            var parts: [String] = []
            for key in members.keys.sorted() {
                let member = members[key]!
                if key == step.key {
                    if path.count == 1, raw == nil { continue }
                    parts.append(JSONValue.string(key).jsonText + ":" + render(member, path.dropFirst(), raw))
                } else {
                    parts.append(JSONValue.string(key).jsonText + ":" + member.jsonText)
                }
            }
            return "{" + parts.joined(separator: ",") + "}"
        case .array(let elements):
            var parts = elements.map(\.jsonText)
            if let index = step.index, parts.indices.contains(index) { parts[index] = render(elements[index], path.dropFirst(), raw) }
            return "[" + parts.joined(separator: ",") + "]"
        default:
            return value.jsonText
        }
    }
}
