import BridgeOps
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// serve's terminal and log say when a paired device asks for more scopes (`requestScopes`, issue 37 item 1): its
/// name, what it asks for, the check code its phone shows and the command that grants it. The request is in the
/// database (whichever process decides it), so this looks there whenever the database's ``StateChanges`` fires.
///
/// When serve can read its terminal (`input`), the request is asked there with the same y/N as a pairing
/// (``ServePairingPrompt``, issue 46 item 5): `y` grants it with the check code shown, anything else refuses it,
/// both audited as the workstation's, as `devices allow`/`deny` are. A request decided meanwhile elsewhere (or
/// expired) withdraws its question.
package struct ScopeRequestNotice: Service {
    package let registry: DeviceRegistry
    /// Whether stdout is a terminal (the notice is printed there; the log has it either way).
    package let terminal: Bool
    /// serve's terminal when it can read it: each request is a y/N question there.
    package let input: TerminalInput?
    package let logger: Logger

    package init(registry: DeviceRegistry, terminal: Bool, input: TerminalInput? = nil, logger: Logger) {
        self.registry = registry
        self.terminal = terminal
        self.input = input
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var told: Set<String> = []
            var asking = input
            var seen = registry.database.changes.generation
            while !Task.isCancelled {
                if let requests = try? await registry.scopeRequests() {
                    let keys = Set(requests.map { $0.deviceId + "/" + $0.checkCode })
                    for request in requests where !told.contains(request.deviceId + "/" + request.checkCode) {
                        if let input = asking {
                            if await !ask(request, on: input) { asking = nil }
                        } else {
                            await announce(request)
                        }
                    }
                    told = keys
                }
                seen = await registry.database.changes.wait(after: seen)
            }
        }
    }

    private func announce(_ request: ScopeRequestRecord) async {
        let device = try? await registry.device(id: request.deviceId)
        let name = ControlCharacters.escaped(device?.name ?? "?")
        log(request)
        guard terminal else { return }
        say(
            """

            \(name) (device \(request.deviceId)) asks to also: \(request.scopes) (it may now: \(device?.scopes.description ?? "-")).
            Check code \(request.checkCode): if the phone shows the same, run
                codex-bridge devices allow \(request.deviceId) --check CODE-THE-PHONE-SHOWS
            (or `codex-bridge devices deny \(request.deviceId)`). It waits until \(request.expiresAt.formatted(date: .omitted, time: .standard)).

            """)
    }

    /// Asks about `request` on the terminal and decides it by the answer; false when no answer can be typed any
    /// more (the input ended: the next requests are only announced).
    private func ask(_ request: ScopeRequestRecord, on input: TerminalInput) async -> Bool {
        log(request)
        let device = try? await registry.device(id: request.deviceId)
        let name = device?.name ?? "?"
        let outcome = await withTaskGroup(of: Answer.self) { group -> Answer in
            group.addTask { .typed(await input.ask(Self.question(request, name: name, holds: device?.scopes))) }
            group.addTask {
                await whileWaiting(request)
                return .decidedElsewhere
            }
            let first = await group.next() ?? .decidedElsewhere
            group.cancelAll()
            return first
        }
        switch outcome {
        case .decidedElsewhere:
            say("\n(No longer waits: decided elsewhere, or expired.)\n")
            return true
        case .typed(nil):
            if Task.isCancelled { return true }
            say("No answer can be typed here any more: use `codex-bridge devices allow|deny \(request.deviceId)`.\n")
            return false
        case .typed(let line?):
            await decide(request, name: name, allow: ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased()))
            return true
        }
    }

    private enum Answer: Sendable {
        case typed(String?)
        case decidedElsewhere
    }

    /// The question for `request`: who asks and for what, the check code, and y/N. Device-chosen text escaped.
    package static func question(_ request: ScopeRequestRecord, name: String, holds: Scopes?) -> String {
        let shown = ControlCharacters.escaped(name)
        return """

            \(shown) (device \(request.deviceId), it may now: \(holds?.description ?? "-")) asks to also: \(request.scopes).
            Check code \(request.checkCode): allow it only if the phone shows the same code.
            (It waits until \(request.expiresAt.formatted(date: .omitted, time: .standard)); `codex-bridge devices allow|deny \(request.deviceId)` decides too.)

            """ + "Allow \(shown) to also: \(request.scopes)? [y/N] "
    }

    /// Returns once `request` no longer waits (granted or refused by another process, expired), or when cancelled.
    private func whileWaiting(_ request: ScopeRequestRecord) async {
        var seen = registry.database.changes.generation
        while !Task.isCancelled {
            let requests = try? await registry.scopeRequests()
            let waiting = requests?.contains { $0.deviceId == request.deviceId && $0.checkCode == request.checkCode }
            guard waiting ?? true else { return }
            let left = request.expiresAt.timeIntervalSinceNow
            guard left > 0 else { return }
            let expiry = ContinuousClock.now.advanced(by: .milliseconds(Int(left * 1000) + 50))
            seen = await registry.database.changes.wait(after: seen, until: expiry)
        }
    }

    private func decide(_ request: ScopeRequestRecord, name: String, allow: Bool) async {
        let shown = ControlCharacters.escaped(name)
        do {
            try await registry.decideScopeRequest(id: request.deviceId, allow: allow, check: allow ? request.checkCode : nil)
        } catch {
            say("Not decided: \(error)\n")
            return
        }
        await registry.auditWorkstation(
            kind: allow ? "allowScopes" : "denyScopes", deviceId: request.deviceId,
            detail: "\(request.deviceId): \(request.scopes), check \(request.checkCode)", name: name)
        say(allow ? "Allowed: \(shown) may now also: \(request.scopes).\n" : "Denied: \(shown) keeps its scopes.\n")
    }

    private func log(_ request: ScopeRequestRecord) {
        logger.notice(
            "A device asks for more scopes",
            metadata: ["bridge.device.id": "\(request.deviceId)", "bridge.device.scopes": "\(request.scopes)"])
    }

    private func say(_ text: String) {
        Terminal.write(text)
    }
}
