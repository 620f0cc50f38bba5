import BridgeProtocol
import ConfinedFiles
import Foundation
import Testing

@testable import BridgeHub

/// The policy gate as a table: (request, the thread's cwd, its remembered policy) → allowed with a policy, or
/// refused with a code. Directories are real (the gate resolves paths), in a fresh temporary tree.
@Suite struct PolicyGateTests {
    let base: String
    let root: String
    let inside: String
    let outside: String
    let gate: PolicyGate

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        base = url.path
        root = base + "/root"
        inside = root + "/project"
        outside = base + "/elsewhere"
        for path in [inside, outside] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        // A link inside the root that leads out of it.
        try FileManager.default.createSymbolicLink(atPath: root + "/escape", withDestinationPath: outside)
        let resolvedRoot = try #require(WorkspaceRoots.resolve(root))
        gate = PolicyGate(
            roots: try WorkspaceRoots([resolvedRoot]), allowedSandboxes: ["read-only", "workspace-write"],
            allowedApprovalPolicies: ["untrusted", "on-request"],
            defaults: TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request"))
    }

    static let danger = TurnPolicy(sandbox: "danger-full-access", approvalPolicy: "never")
    static let readOnly = TurnPolicy(sandbox: "read-only", approvalPolicy: "untrusted")
    static let defaults = TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request")

    enum Expected: Equatable {
        case allowed(TurnPolicy?)
        case refused(BridgeErrorCode)
    }

    func check(_ request: BridgeRequest, cwd: String?, remembered: TurnPolicy? = nil, expect: Expected, _ note: String = "") {
        var namesThread = request.threadId != nil
        if [.approve, .answerInput].contains(request.requestKind) { namesThread = true }
        let facts = namesThread ? PolicyGate.ThreadFacts(cwd: cwd, remembered: remembered) : nil
        let verdict = gate.decide(request, thread: facts)
        switch (verdict, expect) {
        case (.allowed(_, let policy), .allowed(let expected)):
            #expect(policy == expected, "\(request.kind) \(note)")
        case (.refused(let code, _), .refused(let expected)):
            #expect(code == expected, "\(request.kind) \(note)")
        default:
            Issue.record("\(request.kind) \(note): got \(verdict), expected \(expect)")
        }
    }

    @Test func threadRequestsInsideTheRootsRunWithAnAllowedPolicy() {
        let id = "t1"
        let requests: [BridgeRequest] = [
            BridgeRequest(.sendMessage, SendMessage(threadId: id, text: "go")), BridgeRequest(.interrupt, ThreadRef(threadId: id)),
            BridgeRequest(.readThread, ReadThread(threadId: id)), BridgeRequest(.getDiff, ThreadRef(threadId: id)),
            BridgeRequest(.subscribe, Subscribe(threadId: id)),
            BridgeRequest(.approve, Approve(approvalId: "a1", decision: .accept)),  // the approval's thread
            BridgeRequest(.answerInput, AnswerInput(requestId: "in-1", action: .decline)),  // the question's thread
            BridgeRequest(.sendMessage, SendMessage(threadId: id, text: "later", mode: .queue, attachments: ["up-1"])),
            BridgeRequest(.cancelQueued, CancelQueued(threadId: id, queuedId: "q-1")),
            BridgeRequest(.searchFiles, SearchFiles(threadId: id, query: "x")),
            BridgeRequest(.startReview, StartReview(threadId: id, target: .uncommitted)),
        ]
        for request in requests {
            // Remembered and still allowed: kept.
            check(request, cwd: inside, remembered: Self.readOnly, expect: .allowed(Self.readOnly), "remembered read-only")
            // Never remembered (a thread of the Codex CLI): the defaults.
            check(request, cwd: inside, remembered: nil, expect: .allowed(Self.defaults), "no policy")
            // Stored danger-full-access is never inherited when not allowed.
            check(request, cwd: inside, remembered: Self.danger, expect: .allowed(Self.defaults), "stored danger")
            // Outside the roots, directly or through a link, or unknown: refused.
            check(request, cwd: outside, expect: .refused(.forbiddenPath), "outside")
            check(request, cwd: root + "/escape", expect: .refused(.forbiddenPath), "link out")
            check(request, cwd: root + "/../elsewhere", expect: .refused(.forbiddenPath), "dot-dot")
            check(request, cwd: nil, expect: .refused(.forbiddenPath), "no cwd")
            check(request, cwd: "relative", expect: .refused(.forbiddenPath), "relative")
            check(request, cwd: "/", expect: .refused(.forbiddenPath), "filesystem root")
        }
    }

    @Test func unknownThreadIsNotFound() {
        #expect(gate.decide(BridgeRequest(.getDiff, ThreadRef(threadId: "x")), thread: nil) == .refused(.notFound, "unknown thread"))
        #expect(
            gate.decide(BridgeRequest(.answerInput, AnswerInput(requestId: "in-x")), thread: nil)
                == .refused(.inputNotPending, "no such question"))
    }

    @Test func startThreadChecksDirectoryAndPolicy() {
        let cases: [(StartThread, Expected)] = [
            (StartThread(cwd: inside, prompt: "p"), .allowed(Self.defaults)),
            (StartThread(cwd: inside, prompt: "p", sandbox: "read-only", approvalPolicy: "untrusted"), .allowed(Self.readOnly)),
            (StartThread(cwd: inside, prompt: "p", sandbox: "danger-full-access"), .refused(.forbidden)),
            (StartThread(cwd: inside, prompt: "p", approvalPolicy: "never"), .refused(.forbidden)),
            (StartThread(cwd: outside, prompt: "p"), .refused(.forbiddenPath)),
            (StartThread(cwd: root + "/escape", prompt: "p"), .refused(.forbiddenPath)),
            (StartThread(cwd: root + "/missing", prompt: "p"), .refused(.forbiddenPath)),
        ]
        for (start, expected) in cases {
            check(BridgeRequest(.startThread, start), cwd: nil, expect: expected, start.cwd)
        }
    }

    @Test func listDirectoryAndWildcardAndListing() {
        check(BridgeRequest(.listDirectory, ListDirectory(path: inside)), cwd: nil, expect: .allowed(nil))
        check(BridgeRequest(.listDirectory, ListDirectory(path: outside)), cwd: nil, expect: .refused(.forbiddenPath))
        check(BridgeRequest(.listDirectory, ListDirectory(path: root + "/escape")), cwd: nil, expect: .refused(.forbiddenPath))
        check(BridgeRequest(.subscribe, Subscribe(threadId: "*")), cwd: nil, expect: .allowed(nil))
        // Unsubscribing drops only the session's own subscription: allowed whatever the thread (seen refused
        // as an unknown thread for every thread, since the hub looks up nothing for it).
        #expect(gate.decide(BridgeRequest(.unsubscribe, ThreadRef(threadId: "t1")), thread: nil) == .allowed(cwd: nil, policy: nil))
        #expect(gate.decide(BridgeRequest(.unsubscribe, ThreadRef(threadId: "*")), thread: nil) == .allowed(cwd: nil, policy: nil))
        #expect(gate.shows(cwd: inside))
        #expect(!gate.shows(cwd: outside))
        #expect(!gate.shows(cwd: nil))
    }

    @Test func clientPolicyListsWhatMayBeChosen() {
        let policy = gate.clientPolicy
        #expect(policy.sandboxes == ["read-only", "workspace-write"])
        #expect(policy.defaultSandbox == "workspace-write")
        #expect(policy.roots.count == 1)
    }
}
