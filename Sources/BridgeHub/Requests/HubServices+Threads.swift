import BridgeProtocol
import BridgeStore
import CodexControl
import Logging

/// What several handlers (and the hub's own jobs) need of a thread beside the hub: each reads what the hub
/// lacks outside it (Codex, the store) between two steps of its port, and the step after checks again.
extension HubServices {
    /// What the gate needs about a thread: its cwd (from the hub's memory, else `thread/read`, which works on
    /// threads no Codex child has loaded) and the policy this bridge runs it with (else the one kept on disk).
    func threadFacts(_ threadId: String) async throws -> PolicyGate.ThreadFacts {
        let known = await hub.knownFacts(of: threadId)
        guard known.cwd == nil || known.remembered == nil else { return known }
        var cwd: String?? = nil
        if known.cwd == nil {
            let thread: JSONValue
            do {
                thread = try await codex.threadRead(threadId: threadId, includeTurns: false, timeout: policy.codexTimeout)
            } catch let error as CodexError where error.code == .rpc {
                throw HubError(.notFound, "no thread \(threadId.prefix(RequestLimits.maxThreadIdBytes))")
            }
            cwd = .some(thread["cwd"]?.stringValue)
            plans.learn(thread: thread)
        }
        let stored = known.remembered == nil ? await threadPolicies.policy(of: threadId) : nil
        return await hub.learnFacts(of: threadId, cwd: cwd, storedPolicy: stored)
    }

    /// After a Codex restart a thread must be resumed before it can be used again. The resume names the sandbox and
    /// approval policy explicitly: Codex would otherwise keep what it stored with the thread. Two at once may both
    /// resume it (harmless: the second resume of a loaded thread changes nothing); a resume that Codex's restart
    /// overtook is not counted as loaded (the hub's step checks the generation it was sent to).
    func ensureLoaded(_ threadId: String, policy turnPolicy: TurnPolicy) async throws {
        guard let generation = await hub.generationToLoad(threadId) else { return }
        // Unknown to this bridge (e.g. a CLI thread) or loaded by an earlier child: resume it.
        let result: JSONValue
        do {
            result = try await codex.threadResume(
                threadId: threadId, sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy, timeout: policy.codexTimeout)
        } catch let error as CodexError where error.code == .rpc {
            throw HubError(.notFound, "no thread \(threadId): \(error.message)")
        }
        let cwd = result["cwd"]?.stringValue ?? result["thread"]?["cwd"]?.stringValue
        await hub.resumed(threadId, cwd: cwd, in: generation, policy: turnPolicy)
        if let model = result["model"]?.stringValue {
            plans.learn(threadId: threadId, model: model, effort: result["reasoningEffort"]?.stringValue)
        }
    }

    /// Keeps (or forgets) a session's subscription in its client's memory (a reconnect restores it).
    func remember(_ session: ClientSession, subscribedTo threadId: String, _ subscribed: Bool) async {
        guard let key = await hub.clientKey(of: session) else { return }
        await storage.memory.record(key, subscribedTo: threadId, subscribed, logger: session.logger)
    }

    /// Gives every open device session the scopes the database holds for its device now (``ThreadHub/refreshScopes()``):
    /// read beside the hub, kept in one step. A device that connects meanwhile read its own at its handshake.
    func refreshScopes() async -> Int {
        let deviceIds = await hub.connectedDeviceIds
        guard !deviceIds.isEmpty else { return 0 }
        let current: [String: Scopes]
        do {
            current = try await storage.devices.scopes(among: deviceIds)
        } catch {
            logger.warning("Cannot read device scopes", metadata: ["error": "\(error)"])
            return 0
        }
        return await hub.applyScopes(current)
    }
}
