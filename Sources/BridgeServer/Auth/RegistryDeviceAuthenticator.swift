import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// Device tokens and one-time pairing codes, checked against the ``DeviceRegistry`` in the bridge database.
///
/// Device tokens are looked up; pairing codes are redeemed for a new device, or — with ``Confirmation`` (`serve
/// --confirm-pairing`) — for a pairing the workstation must allow first. Every failure, a database error
/// included, is `.rejected`: a client never learns more than `unauthorized`. Neither codes nor tokens are ever
/// logged, only device ids and the kind of failure. Pairings are written to the audit log.
public struct RegistryDeviceAuthenticator: DeviceAuthenticating {
    /// Pairings wait for the workstation (`serve --confirm-pairing`).
    public struct Confirmation: Sendable {
        /// How long a pairing waits at most (5 minutes).
        public var timeout: Duration
        /// How often the database is asked for the decision (another process, `devices allow`, writes it).
        public var pollInterval: Duration
        /// Shows a new request on the workstation (serve's terminal); called once per request.
        public var announce: @Sendable (PairingRequestRecord) -> Void
        /// Told the device id each time the database had no decision yet (a test's barrier).
        var undecided: @Sendable (String) -> Void = { _ in }

        public init(
            timeout: Duration = DeviceRegistry.confirmationTimeout, pollInterval: Duration = .milliseconds(250),
            announce: @escaping @Sendable (PairingRequestRecord) -> Void = { _ in }
        ) {
            self.timeout = timeout
            self.pollInterval = pollInterval
            self.announce = announce
        }
    }

    private let registry: DeviceRegistry
    private let logger: Logger
    private let confirmation: Confirmation?
    private let auditor: Auditor

    /// - Parameters:
    ///   - registry: the devices and pairing codes.
    ///   - logger: receives device ids and failure kinds, never a secret.
    ///   - confirmation: set to make every pairing wait for the workstation.
    public init(registry: DeviceRegistry, logger: Logger, confirmation: Confirmation? = nil) {
        self.registry = registry
        self.logger = logger
        self.confirmation = confirmation
        self.auditor = Auditor(log: AuditLog(database: registry.database), logger: logger)
    }

    public func authenticateDevice(token: String, remoteAddress: String) async -> AuthenticationResult {
        do {
            guard let record = try await registry.authenticate(deviceToken: token, address: remoteAddress) else {
                logger.debug("Unknown or revoked device token", metadata: ["bridge.remote": "\(remoteAddress)"])
                return .rejected
            }
            return .accepted(.device(id: record.id), scopes: record.scopes)
        } catch {
            logger.error(
                "Device token check failed: database error",
                metadata: ["bridge.remote": "\(remoteAddress)", "error.type": "\(type(of: error))"])
            return .rejected
        }
    }

    /// From the in-memory table (``DeviceRegistry/cachedDevice(deviceToken:address:)``) while it is fresh; nil
    /// when it is stale (then ``authenticateDevice(token:remoteAddress:)`` reads the database).
    public func cachedDevice(token: String, remoteAddress: String) -> AuthenticationResult? {
        switch registry.cachedDevice(deviceToken: token, address: remoteAddress) {
        case .device(let device):
            return .accepted(.device(id: device.id), scopes: device.scopes)
        case .unknown:
            logger.debug("Unknown or revoked device token", metadata: ["bridge.remote": "\(remoteAddress)"])
            return .rejected
        case .stale:
            return nil
        }
    }

    /// Loads the in-memory device table from the database (what other processes wrote); a server does it every
    /// second (``RevocationWatcher``). On a database error the table goes stale and checks read the database.
    public func reloadTokens() async {
        do {
            try await registry.reloadTokens()
        } catch {
            logger.warning("Cannot load the device table: database error", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    public func isRevoked(deviceId: String) async -> Bool {
        await revokedDeviceIds(among: [deviceId]).contains(deviceId)
    }

    /// Of `ids`, those revoked or deleted; one database read. On a database error none is reported revoked:
    /// live connections stay up through a transient failure, while new authentications fail closed.
    public func revokedDeviceIds(among ids: Set<String>) async -> Set<String> {
        do {
            return try await registry.revokedDeviceIds(among: ids)
        } catch {
            logger.warning("Revocation check failed: database error", metadata: ["error.type": "\(type(of: error))"])
            return []
        }
    }

    public func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult {
        do {
            if let confirmation {
                let request = try await registry.requestPairing(
                    code: code, device: device ?? DeviceInfo(), address: remoteAddress, timeout: confirmation.timeout)
                logger.notice(
                    "Pairing waits for confirmation on the workstation",
                    metadata: [
                        "bridge.device.id": "\(request.deviceId)", "bridge.device.name": "\(request.name)",
                        "bridge.device.platform": "\(request.platform ?? "")", "bridge.remote": "\(remoteAddress)",
                        "bridge.pairing.check": "\(request.checkCode)",
                    ])
                confirmation.announce(request)
                await record(
                    request.deviceId, name: request.name, address: remoteAddress, kind: "pairingRequested", outcome: "pending",
                    detail: "check \(request.checkCode), scopes \(request.scopes)")
                return .pending(PendingPairing(deviceId: request.deviceId, check: request.checkCode, expiresAt: request.expiresAt))
            }
            let paired = try await registry.redeem(code: code, device: device ?? DeviceInfo(), address: remoteAddress)
            await record(
                paired.deviceId, name: paired.record.name, address: remoteAddress, kind: "pair", outcome: "ok",
                detail: "scopes \(paired.record.scopes)")
            return .accepted(.device(id: paired.deviceId), newDeviceToken: paired.deviceToken, scopes: paired.record.scopes)
        } catch let error as DeviceRegistryError {
            // The message names the kind (unknown, used, expired), never the code.
            logger.notice(
                "Pairing code rejected",
                metadata: ["bridge.remote": "\(remoteAddress)", "bridge.pairing.failure": "\(error.code)"])
            return .rejected
        } catch {
            logger.error(
                "Pairing failed: database error",
                metadata: ["bridge.remote": "\(remoteAddress)", "error.type": "\(type(of: error))"])
            return .rejected
        }
    }

    public func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome {
        let id = pending.deviceId
        let poll = confirmation?.pollInterval ?? .milliseconds(250)
        do {
            while true {
                switch try await registry.pairingDecision(id: id) {
                case .allowed:
                    let paired = try await registry.completePairing(id: id)
                    await record(
                        id, name: paired.record.name, address: paired.record.lastAddress, kind: "pair", outcome: "ok",
                        detail: "confirmed on the workstation; scopes \(paired.record.scopes)")
                    return .allowed(.accepted(.device(id: id), newDeviceToken: paired.deviceToken, scopes: paired.record.scopes))
                case .denied:
                    await drop(id)
                    logger.notice("Pairing denied on the workstation", metadata: ["bridge.device.id": "\(id)"])
                    return .refused(WireError(code: .pairingDenied, message: "the workstation denied this pairing"))
                case .gone:
                    return .refused(WireError(code: .pairingDenied, message: "the pairing request is gone; pair again"))
                case .waiting:
                    confirmation?.undecided(id)
                    if Date() >= pending.expiresAt {
                        await drop(id)
                        await record(id, name: nil, address: nil, kind: "pairingExpired", outcome: "pairing_expired", actor: .bridge)
                        logger.notice("Pairing not confirmed in time", metadata: ["bridge.device.id": "\(id)"])
                        return .refused(
                            WireError(
                                code: .pairingExpired, message: "nobody confirmed this pairing on the workstation in time; pair again"))
                    }
                }
                try await Task.sleep(for: poll)
            }
        } catch is CancellationError {
            await drop(id)
            await record(id, name: nil, address: nil, kind: "pairingAbandoned", outcome: "closed", actor: .bridge)
            logger.notice("Pairing abandoned: the phone went away", metadata: ["bridge.device.id": "\(id)"])
            return .refused(WireError(code: .pairingExpired, message: "the pairing was abandoned"))
        } catch {
            await drop(id)
            logger.error(
                "Pairing confirmation failed: database error", metadata: ["bridge.device.id": "\(id)", "error.type": "\(type(of: error))"])
            return .refused(WireError(code: .unauthorized, message: "the pairing failed on the workstation; pair again"))
        }
    }

    /// Forgets a pairing request, even from a cancelled task (the write runs in its own).
    private func drop(_ id: String) async {
        let registry = self.registry
        let logger = self.logger
        await Task {
            do {
                try await registry.dropPairingRequest(id: id)
            } catch {
                logger.warning(
                    "Cannot drop a pairing request", metadata: ["bridge.device.id": "\(id)", "error.type": "\(type(of: error))"])
            }
        }.value
    }

    private func record(
        _ deviceId: String, name: String?, address: String?, kind: String, outcome: String, detail: String? = nil,
        actor: AuditActor = .device
    ) async {
        let entry = auditor.entry(
            actor: actor, deviceId: deviceId, deviceName: name, address: address, kind: kind, outcome: outcome, detail: detail)
        let auditor = self.auditor
        // In its own task: a pairing abandoned by a cancelled wait is recorded too.
        await Task { await auditor.record(entry) }.value
    }
}
