import BridgeOps
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// With `serve --confirm-pairing` on a terminal, each pairing that waits is asked about on serve's own terminal:
/// the phone's name, platform, address and scopes, the check code to compare with the phone's, and `Allow this
/// phone? [y/N]` (issue 37 item 6). `y` allows it with that check code, anything else denies it; both are audited
/// as the workstation's, as `devices allow`/`deny` are. One question at a time, in the order the pairings came (and
/// the scope requests, ``ScopeRequestNotice``, which ask on the same terminal); what was typed before a question is
/// shown answers nothing (it shows the pairing QR again: ``TerminalInput``).
/// A pairing decided meanwhile (`devices allow` in another terminal, its phone gone, expired) is said so and
/// decided no more.
package struct ServePairingPrompt: Service {
    /// The pairings announced by the authenticator (``RegistryDeviceAuthenticator/Confirmation/announce``).
    package let requests: AsyncStream<PairingRequestRecord>
    package let registry: DeviceRegistry
    /// serve's terminal, whose next line answers each question.
    package let input: TerminalInput
    package let logger: Logger

    package init(requests: AsyncStream<PairingRequestRecord>, registry: DeviceRegistry, input: TerminalInput, logger: Logger) {
        self.requests = requests
        self.registry = registry
        self.input = input
        self.logger = logger
    }

    package func run() async throws {
        // A question waiting for its answer ends with the shutdown too.
        await cancelWhenGracefulShutdown {
            for await request in requests {
                guard await isWaiting(request) else { continue }
                guard let line = await input.ask(Self.question(request)) else {
                    if Task.isCancelled { return }
                    say("No answer can be typed here any more: use `codex-bridge devices allow|deny \(request.deviceId)`.\n")
                    return
                }
                await decide(request, allow: ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased()))
            }
        }
    }

    /// The question for `request`: who asks, the check code, and y/N. Device-chosen text escaped.
    package static func question(_ request: PairingRequestRecord) -> String {
        let from = [request.platform, request.address.map { "from \($0)" }].compactMap { $0 }.map { ControlCharacters.escaped($0) }
            .joined(separator: ", ")
        return """

            A phone asks to pair: \(ControlCharacters.escaped(request.name))\(from.isEmpty ? "" : " (\(from))"), scopes \(request.scopes).
            Check code \(request.checkCode): allow it only if the phone shows the same code.
            (It waits until \(request.expiresAt.formatted(date: .omitted, time: .standard)); `codex-bridge devices allow|deny \(request.deviceId)` decides too.)

            """ + "Allow this phone? [y/N] "
    }

    private func isWaiting(_ request: PairingRequestRecord) async -> Bool {
        (try? await registry.pairingDecision(id: request.deviceId)) == .waiting
    }

    private func decide(_ request: PairingRequestRecord, allow: Bool) async {
        let name = ControlCharacters.escaped(request.name)
        do {
            try await registry.decidePairing(id: request.deviceId, allow: allow, check: allow ? request.checkCode : nil)
        } catch {
            say("Not decided: \(error)\n")
            return
        }
        await registry.auditWorkstation(
            kind: allow ? "allowPairing" : "denyPairing", deviceId: request.deviceId,
            detail: "\(request.name), check \(request.checkCode), scopes \(request.scopes)", name: request.name)
        say(allow ? "Allowed: \(name) is paired, with scopes \(request.scopes).\n" : "Denied: \(name) will not be paired.\n")
    }

    private func say(_ text: String) {
        Terminal.write(text)
    }
}
