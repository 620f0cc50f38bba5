import BridgeProtocol
import ConfinedFiles
import Foundation

/// The one gate every request passes: where threads may run (the roots) and with which sandbox and approval
/// policy. A value type with no I/O apart from resolving paths; the hub gathers what it needs (a thread's cwd
/// and remembered policy) and asks the gate before it acts.
///
/// Rules:
/// - a request that names a thread is allowed only when the thread's cwd resolves inside a root (a thread of
///   another bridge, or of the Codex CLI elsewhere, is `forbidden_path`; `listThreads` leaves it out);
/// - every turn this bridge starts or resumes runs with a sandbox and approval policy this bridge allows: the
///   policy remembered for the thread when it still is allowed, else the defaults — never a stored
///   `danger-full-access` unless the bridge allows it;
/// - `startThread` and `listDirectory` name a directory that must resolve inside a root.
struct PolicyGate: Sendable {
    let roots: WorkspaceRoots
    let allowedSandboxes: Set<String>
    let allowedApprovalPolicies: Set<String>
    let defaults: TurnPolicy

    /// What a thread-naming request needs to know about its thread.
    struct ThreadFacts: Sendable, Hashable {
        /// The thread's working directory as Codex reports it; nil when unknown.
        var cwd: String?
        /// The policy the bridge last ran it with, if any.
        var remembered: TurnPolicy?
    }

    /// The gate's answer.
    enum Verdict: Sendable, Hashable {
        /// Go ahead; `cwd` is the resolved directory and `policy` what turns must run with (when relevant).
        case allowed(cwd: String?, policy: TurnPolicy?)
        case refused(BridgeErrorCode, String)
    }

    /// Decides `request` by its kind's ``GateRule``; `thread` describes the thread the rule points at (the one
    /// ``BridgeRequest/threadId`` names, or the approval's or question's thread), nil when it names none or the
    /// thread is unknown.
    func decide(_ request: BridgeRequest, thread: ThreadFacts?) -> Verdict {
        switch request.descriptor.gate {
        case .none:
            // Names no thread the gate must judge: the scope, checked before the gate is asked, is all it needs.
            // (`unsubscribe` only drops the session's own subscription, one the gate allowed, and its answer is
            // the same whether the thread exists or not; list answers leave out threads outside the roots.)
            return .allowed(cwd: nil, policy: nil)
        case .thread:
            // A request naming every thread (`subscribe "*"`) names none to judge.
            guard request.threadId != nil else { return .allowed(cwd: nil, policy: nil) }
            guard let thread else { return .refused(.notFound, "unknown thread") }
            return admitThread(thread)
        case .approval:
            guard let thread else { return .refused(.approvalNotPending, "no such approval") }
            return admitThread(thread)
        case .question:
            guard let thread else { return .refused(.inputNotPending, "no such question") }
            return admitThread(thread)
        case .newThread:
            guard let start = request.payload(as: StartThread.self) else { return .refused(.badRequest, "not a new thread") }
            return admitNewThread(cwd: start.cwd, sandbox: start.sandbox, approvalPolicy: start.approvalPolicy)
        case .directory:
            guard let list = request.payload(as: ListDirectory.self), let resolved = roots.confine(list.path) else {
                return .refused(.forbiddenPath, "path must be an existing directory inside \(rootList)")
            }
            return .allowed(cwd: resolved, policy: nil)
        case .file:
            guard let thread else { return .refused(.notFound, "unknown thread") }
            guard case .allowed(let cwd?, _) = admitThread(thread) else { return admitThread(thread) }
            return admitFilePath(request.payload(as: ReadFile.self)?.path ?? "", in: cwd)
        case .settings:
            guard let thread else { return .refused(.notFound, "unknown thread") }
            guard case .allowed(let cwd, let current?) = admitThread(thread) else { return admitThread(thread) }
            guard let profile = request.payload(as: UpdateThreadSettings.self)?.permissionProfile else {
                return .allowed(cwd: cwd, policy: current)
            }
            return admitPermissionProfile(profile, cwd: cwd, current: current)
        }
    }

    /// A thread this bridge may act on: its cwd is inside a root.
    func admitThread(_ thread: ThreadFacts) -> Verdict {
        guard let cwd = thread.cwd, cwd.hasPrefix("/"), let resolved = WorkspaceRoots.resolve(cwd), roots.contains(resolved: resolved)
        else {
            return .refused(.forbiddenPath, "the thread's directory is outside this bridge's roots (\(rootList))")
        }
        return .allowed(cwd: resolved, policy: turnPolicy(remembered: thread.remembered))
    }

    /// The path of a file a client may read, judged by its name alone: relative to the thread's directory (or
    /// absolute inside it), not inside `.git`. The verdict's `cwd` is the thread's directory. The file itself is
    /// opened once, below that directory, by ``WorkspaceFiles/openFile(_:cwd:roots:)`` (a regular file, no
    /// link out of the directory), never looked up again by name.
    func admitFilePath(_ path: String, in directory: String) -> Verdict {
        guard let relative = WorkspaceFiles.relativePath(path, cwd: directory), !relative.isEmpty else {
            return .refused(.forbiddenPath, "path must name an existing file inside the thread's directory (\(directory))")
        }
        guard !relative.split(separator: "/").contains(".git") else { return .refused(.forbiddenPath, "files inside .git are not shown") }
        return .allowed(cwd: directory, policy: nil)
    }

    /// Whether `listThreads` shows a thread whose cwd is `cwd`.
    func shows(cwd: String?) -> Bool {
        guard let cwd, cwd.hasPrefix("/"), let resolved = WorkspaceRoots.resolve(cwd) else { return false }
        return roots.contains(resolved: resolved)
    }

    /// The policy turns of an existing thread run with: the remembered one while it is still allowed, else
    /// the defaults.
    func turnPolicy(remembered: TurnPolicy?) -> TurnPolicy {
        guard let remembered, allowedSandboxes.contains(remembered.sandbox),
            allowedApprovalPolicies.contains(remembered.approvalPolicy)
        else { return defaults }
        return remembered
    }

    func admitNewThread(cwd: String, sandbox: String?, approvalPolicy: String?) -> Verdict {
        guard let resolved = roots.confine(cwd) else {
            return .refused(.forbiddenPath, "cwd must be an existing directory inside \(rootList)")
        }
        let sandbox = sandbox ?? defaults.sandbox
        guard allowedSandboxes.contains(sandbox) else {
            return .refused(
                .forbidden, "sandbox '\(sandbox.prefix(64))' is not allowed; allowed: \(allowedSandboxes.sorted().joined(separator: ", "))")
        }
        let approvalPolicy = approvalPolicy ?? defaults.approvalPolicy
        guard allowedApprovalPolicies.contains(approvalPolicy) else {
            return .refused(
                .forbidden,
                "approvalPolicy '\(approvalPolicy.prefix(64))' is not allowed; allowed: \(allowedApprovalPolicies.sorted().joined(separator: ", "))"
            )
        }
        return .allowed(cwd: resolved, policy: TurnPolicy(sandbox: sandbox, approvalPolicy: approvalPolicy))
    }

    /// Codex's built-in permission profiles and the sandbox each stands for. A profile of the user's own
    /// (`[permissions]` in Codex's config) could grant anything: the gate cannot judge it and refuses it.
    static let permissionProfiles: [String: String] = [
        ":read-only": "read-only", ":workspace": "workspace-write", ":danger-full-access": "danger-full-access",
    ]

    /// A permission profile chosen mid-thread: allowed when the bridge allows its sandbox (so a phone never
    /// widens a thread beyond `--sandbox`/`--allow-danger-full-access`); the verdict's policy is the thread's new one.
    func admitPermissionProfile(_ profile: String, cwd: String?, current: TurnPolicy) -> Verdict {
        guard let sandbox = Self.permissionProfiles[profile] else {
            let known = Self.permissionProfiles.keys.sorted().joined(separator: ", ")
            return .refused(.badRequest, "unknown permission profile '\(profile.prefix(64))'; known: \(known)")
        }
        guard allowedSandboxes.contains(sandbox) else {
            let allowed = allowedSandboxes.sorted().joined(separator: ", ")
            return .refused(
                .forbidden, "permission profile '\(profile)' (sandbox \(sandbox)) is not allowed; allowed sandboxes: \(allowed)")
        }
        return .allowed(cwd: cwd, policy: TurnPolicy(sandbox: sandbox, approvalPolicy: current.approvalPolicy))
    }

    /// What `helloAck.policy` tells clients.
    var clientPolicy: ClientPolicy {
        ClientPolicy(
            roots: roots.paths, sandboxes: allowedSandboxes.sorted(), defaultSandbox: defaults.sandbox,
            approvalPolicies: allowedApprovalPolicies.sorted(), defaultApprovalPolicy: defaults.approvalPolicy)
    }

    private var rootList: String { roots.paths.joined(separator: ", ") }
}
