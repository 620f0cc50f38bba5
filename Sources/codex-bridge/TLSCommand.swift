import ArgumentParser
import BridgeOps
import BridgeServe
import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing

/// `codex-bridge tls show|rotate` (the leaf `serve --tls` serves) and `tls ca [show]|rotate` (the
/// workstation's certificate authority that issues it).
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Show or replace this workstation's certificate authority and the certificate `serve --tls` serves.",
        discussion: """
            serve --tls serves a certificate issued by this workstation's own certificate authority (STATE/tls/ca.pem, \
            its key ca-key.pem 0600), whose name constraints limit it to this workstation's names and addresses. A phone \
            trusts the CA once (the trust page on the bridge's port, /ca.mobileconfig, /ca.crt); native apps pin its \
            SHA-256 fingerprint: 64 lowercase hex digits, the SHA-256 of the DER certificate.
            """,
        subcommands: [Show.self, Rotate.self, Authority.self]
    )

    /// What `tls show --json` and `tls rotate --json` print: the leaf.
    struct LeafSummary: Encodable {
        /// The fingerprint clients pin: the CA's.
        var fingerprint: String
        var leafFingerprint: String
        var certificate: String
        var key: String
        var authority: String
        var notValidBefore: Date
        var notValidAfter: Date
        var subjectAlternativeNames: [String]

        init(_ leaf: TLSIdentity, authority: CertificateAuthority, store: TLSStore) {
            fingerprint = authority.fingerprint
            leafFingerprint = leaf.fingerprint
            certificate = store.certificateFile.path
            key = store.keyFile.path
            self.authority = store.authorityCertificateFile.path
            notValidBefore = leaf.notValidBefore
            notValidAfter = leaf.notValidAfter
            subjectAlternativeNames = leaf.subjectAlternativeNames
        }

        func show(json: Bool) throws {
            if json { return Terminal.say(try TLSCommand.json(self)) }
            Terminal.say(fingerprint)
            TLSCommand.note(
                """
                certificate \(certificate), issued by this workstation's certificate authority (SHA-256 above)
                valid until \(notValidAfter.formatted(.iso8601)); names: \(subjectAlternativeNames.joined(separator: ", "))
                """)
        }
    }

    /// What `tls ca --json` and `tls ca rotate --json` print.
    struct AuthoritySummary: Encodable {
        var fingerprint: String
        var commonName: String
        var certificate: String
        var key: String
        var notValidBefore: Date
        var notValidAfter: Date
        /// The name constraints: DNS names (each with the names below it) and IP ranges.
        var constraints: [String]

        init(_ authority: CertificateAuthority, store: TLSStore) {
            fingerprint = authority.fingerprint
            commonName = authority.commonName
            certificate = store.authorityCertificateFile.path
            key = store.authorityKeyFile.path
            notValidBefore = authority.notValidBefore
            notValidAfter = authority.notValidAfter
            constraints = authority.scope.entries
        }

        func show(json: Bool) throws {
            if json { return Terminal.say(try TLSCommand.json(self)) }
            Terminal.say(fingerprint)
            TLSCommand.note(
                """
                certificate authority \(certificate) ("\(commonName)"), key \(key)
                SHA-256 as a phone shows it: \(PairingInvitation.grouped(fingerprint))
                valid until \(notValidAfter.formatted(.iso8601)); it can sign only for: \(constraints.joined(separator: ", "))
                phones trust it from the bridge's port over plain http:// (the trust page), /ca.mobileconfig or /ca.crt
                """)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the fingerprint clients pin (the CA's) and describe the served certificate (making them if there are none yet).")

        @OptionGroup var state: StateOptions

        @Flag(
            help:
                "Print {fingerprint, leafFingerprint, certificate, key, authority, notValidBefore, notValidAfter, subjectAlternativeNames} as JSON."
        )
        var json = false

        func run() async throws {
            try await TLSCommand.withStore(state) { paths, store in
                // Reading needs no write access: only a missing CA or leaf makes the directory and the files.
                if let authority = try store.loadAuthority(), let leaf = store.loadLeaf(), authority.issued(leaf.certificate) {
                    return try LeafSummary(leaf, authority: authority, store: store).show(json: json)
                }
                let (authority, leaf) = try await TLSCommand.prepare(paths: paths)
                try LeafSummary(leaf, authority: authority, store: store).show(json: json)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a new certificate (and key) from the same certificate authority.",
            discussion:
                "A running server serves it from its next connection. Phones and pinned apps need nothing new. To replace the certificate authority itself, run `tls ca rotate`."
        )

        @OptionGroup var state: StateOptions

        @Flag(help: "Print the new certificate's summary as JSON.")
        var json = false

        func run() async throws {
            try await TLSCommand.withStore(state) { paths, store in
                let (names, _) = try await TLSCommand.namesToCover(paths: paths)
                let (authority, _) = try store.loadOrCreateAuthority(scope: ServeTLS.scope(names: names), name: ServerIdentity.hostName())
                let leaf = try authority.issueLeaf(names: names)
                try store.replaceLeaf(leaf)
                try LeafSummary(leaf, authority: authority, store: store).show(json: json)
            }
        }
    }

    /// `tls ca`, `tls ca show`, `tls ca rotate`.
    struct Authority: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ca",
            abstract: "Show (default) or replace this workstation's certificate authority.",
            subcommands: [AuthorityShow.self, AuthorityRotate.self],
            defaultSubcommand: AuthorityShow.self
        )
    }

    struct AuthorityShow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract:
                "Print the CA's SHA-256 fingerprint (what phones compare and apps pin) and where it is (making it if there is none yet).")

        @OptionGroup var state: StateOptions

        @Flag(help: "Print {fingerprint, commonName, certificate, key, notValidBefore, notValidAfter, constraints} as JSON.")
        var json = false

        func run() async throws {
            try await TLSCommand.withStore(state) { paths, store in
                if let authority = try store.loadAuthority() {
                    return try AuthoritySummary(authority, store: store).show(json: json)
                }
                let (authority, _) = try await TLSCommand.prepare(paths: paths)
                try AuthoritySummary(authority, store: store).show(json: json)
            }
        }
    }

    struct AuthorityRotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Make a new certificate authority (for the current names and addresses) and a certificate from it.",
            discussion:
                "Phones must trust the new one (the trust page again), and native apps pinned to the old one pair again. A running server keeps the old one until it restarts."
        )

        @OptionGroup var state: StateOptions

        @Flag(help: "Print the new CA's summary as JSON.")
        var json = false

        func run() async throws {
            try await TLSCommand.withStore(state) { paths, store in
                let (names, running) = try await TLSCommand.namesToCover(paths: paths)
                let authority = try store.rotateAuthority(scope: ServeTLS.scope(names: names), name: ServerIdentity.hostName())
                try store.ensureLeaf(authority: authority, names: names)
                try AuthoritySummary(authority, store: store).show(json: json)
                if let running, running.tls {
                    note("the running server (pid \(running.pid)) keeps the old certificate authority until it restarts")
                }
                note("phones must trust the new certificate authority, and apps that pinned the old one pair again (codex-bridge pair)")
            }
        }
    }

    /// Runs `body` with the state directory and its TLS store; any error is one line for the user.
    static func withStore(_ state: StateOptions, _ body: (StatePaths, TLSStore) async throws -> Void) async throws {
        let paths = state.paths
        do {
            try await body(paths, TLSStore(directory: paths.tlsDirectory))
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// The CA and the certificate `serve --tls` would use, made when missing.
    static func prepare(paths: StatePaths) async throws -> (CertificateAuthority, TLSIdentity) {
        try paths.prepare()
        return try await ServeTLS.prepare(paths: paths, listenHosts: [], logger: quietLogger)
    }

    /// For a rotation: the names a new certificate covers (a running server's addresses too) and that server.
    static func namesToCover(paths: StatePaths) async throws -> (names: [String], running: ServerRecord?) {
        try paths.prepare()
        let running = ServerRecord.readRunning(paths: paths)
        let names = await ServeTLS.certificateNames(listenHosts: running.map { [$0.host] + $0.addresses } ?? [], logger: quietLogger)
        return (names, running)
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A line (or lines) for the person, on stderr.
    static func note(_ text: String) {
        Terminal.warn(text + "\n")
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "codex-bridge.tls")
        logger.logLevel = .error
        return logger
    }
}
