import BridgeClient
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Synchronization

/// Pairs this bridge with another one as a device (platform `bridge`) and describes the link to keep: the one way
/// a machine is linked, for `codex-bridge machines add` and the admin's `addMachine`.
public enum MachinePairing {
    /// Why a machine could not be linked, for a person.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The target for a pairing URL (`codex-bridge pair --json`'s `url` there), or for a bridge found nearby and
    /// the code its `codex-bridge pair` shows.
    public static func target(url: String?, host: String?, port: Int?, fingerprint: String?, code: String?) throws -> BridgeTarget {
        if let url {
            let target: BridgeTarget
            do {
                target = try BridgeTarget(parsing: url)
            } catch {
                throw Failure(error.message)
            }
            guard case .pairing = target else {
                throw Failure("not a pairing URL: run `codex-bridge pair --json` on the other workstation and pass its url")
            }
            return target
        }
        guard let host, !host.isEmpty, let port, (1...65535).contains(port), let code, !code.isEmpty else {
            throw Failure("give the other bridge's pairing url, or its host, port and pairing code")
        }
        let pairing = PairingURL(
            host: host, port: port, credential: .pairingCode(code.trimmingCharacters(in: .whitespaces)), addresses: [host],
            serverId: "", serverName: "", fingerprint: fingerprint)
        return .pairing(pairing)
    }

    /// Pairs with the bridge `target` names; `onPending` is told the check code when that bridge's owner must
    /// confirm (the call then waits, at most 5 minutes).
    public static func pair(
        _ target: BridgeTarget, home: MachineRef, name: String?, onPending: (@Sendable (PairingPending) -> Void)? = nil
    ) async throws -> MachineStore.Machine {
        if let name { try checkName(name) }
        var configuration = BridgeClientConfiguration(
            target: target, device: DeviceInfo(name: home.name, platform: "bridge"), reconnects: false)
        configuration.onPairingPending = onPending
        var logger = Logger(label: "codex-bridge.machines")
        logger.logLevel = .critical
        let client = BridgeClient(configuration: configuration, logger: logger)
        let ack: HelloAck
        do {
            ack = try await client.connect()
        } catch {
            throw Failure("cannot pair with the other bridge: \(error.message)")
        }
        await client.close()
        guard let server = ack.server, let token = ack.deviceToken, let deviceId = ack.deviceId, let clientId = configuration.clientId
        else {
            throw Failure("the other bridge did not hand out a device token (is it a pairing URL with a fresh code?)")
        }
        // What the other bridge says becomes a row here, a name on the phones and a word on the terminal.
        guard isIdentifier(server.id, max: 128), isIdentifier(deviceId, max: 128), (1...4096).contains(token.utf8.count),
            !token.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else {
            throw Failure("the other bridge answered with a server id, device id or token this bridge does not accept")
        }
        guard server.id != home.id else { throw Failure("that is this bridge itself") }
        let endpoints = target.candidates
        return MachineStore.Machine(
            id: server.id, name: name ?? shownName(server.name, or: endpoints.first?.host ?? server.id), addresses: endpoints.map(\.host),
            port: endpoints.first?.port ?? BridgeEndpoint.defaultPort, fingerprint: target.pin?.fingerprint, deviceId: deviceId,
            token: token, clientId: clientId)
    }

    /// Pairs (``pair(_:home:name:onPending:)``) and stores the link. While the other bridge's owner must confirm,
    /// the machine is listed as `pending` (a row with no credential, which no link runs); it is replaced by the
    /// link once paired, and removed if the pairing fails.
    public static func link(
        _ target: BridgeTarget, home: MachineRef, name: String?, store: MachineStore, onPending: (@Sendable (PairingPending) -> Void)? = nil
    ) async throws -> MachineStore.Machine {
        let recorded = Mutex<Task<String?, Never>?>(nil)
        let endpoints = target.candidates
        var shownName = name ?? endpoints.first?.host ?? "pending"
        if name == nil, case .pairing(let url) = target, !url.serverName.isEmpty { shownName = url.serverName }
        let pendingName = shownName
        func forgetPending() async {
            guard let id = await recorded.withLock({ $0 })?.value else { return }
            _ = try? await store.remove(id)
        }
        do {
            let machine = try await pair(target, home: home, name: name) { pending in
                onPending?(pending)
                // An id this bridge would not accept gets no row (the answer that follows is refused for it too).
                guard isIdentifier(pending.deviceId, max: 128) else { return }
                let row = MachineStore.Machine(
                    id: pendingPrefix + pending.deviceId, name: String(pendingName.prefix(64)), addresses: endpoints.map(\.host),
                    port: endpoints.first?.port ?? BridgeEndpoint.defaultPort, fingerprint: target.pin?.fingerprint,
                    deviceId: pending.deviceId,
                    token: "", clientId: "", state: "pending")
                recorded.withLock { $0 = Task { (try? await store.save(row)) != nil ? row.id : nil } }
            }
            await forgetPending()
            try await store.save(machine)
            return machine
        } catch {
            await forgetPending()
            throw error
        }
    }

    /// The id of a machine listed while its owner has not confirmed the link yet: this prefix and this bridge's
    /// device id there.
    public static let pendingPrefix = "pending-"

    /// An id from the other bridge: 1 to `max` characters of letters, digits, `-`, `_` and `.` (a server id is
    /// base64url; a device id is lowercase letters and digits), so that it is safe as a row key and as a word on
    /// the terminal (`codex-bridge machines remove ID`).
    static func isIdentifier(_ id: String, max: Int) -> Bool {
        (1...max).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }

    /// The other bridge's name without control or format characters, at most 64 characters (`fallback` when
    /// nothing is left).
    static func shownName(_ name: String, or fallback: String) -> String {
        let kept = String(
            String.UnicodeScalarView(
                name.unicodeScalars.filter {
                    switch $0.properties.generalCategory {
                    case .control, .format, .lineSeparator, .paragraphSeparator: false
                    default: true
                    }
                })
        ).trimmingCharacters(in: .whitespaces)
        return String((kept.isEmpty ? fallback : kept).prefix(64))
    }

    /// 1 to 64 characters, no control characters.
    public static func checkName(_ name: String) throws {
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw Failure("a machine's name is 1 to 64 characters without control characters")
        }
    }
}
