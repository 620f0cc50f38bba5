import ArgumentParser
import BridgeStore
import BridgeTLS
import Foundation
import Logging

/// `codex-bridge tls show` / `tls rotate`: the certificate `serve --tls` serves.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Show or replace the self-signed TLS certificate that `serve --tls` uses.",
        discussion: """
            The certificate (ECDSA P-256) and its key live in STATE/tls/cert.pem and STATE/tls/key.pem (0600). \
            Phones pin its SHA-256 fingerprint: 64 lowercase hex digits, no colons, the SHA-256 of the DER certificate.
            """,
        subcommands: [Show.self, Rotate.self]
    )

    /// What `tls show --json` and `tls rotate --json` print.
    struct Summary: Encodable {
        var fingerprint: String
        var certificate: String
        var key: String
        var notValidBefore: Date
        var notValidAfter: Date
        var subjectAlternativeNames: [String]

        init(_ identity: TLSIdentity, store: TLSStore) {
            fingerprint = identity.fingerprint
            certificate = store.certificateFile.path
            key = store.keyFile.path
            notValidBefore = identity.notValidBefore
            notValidAfter = identity.notValidAfter
            subjectAlternativeNames = identity.subjectAlternativeNames
        }

        func print(json: Bool) throws {
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Swift.print(String(decoding: try encoder.encode(self), as: UTF8.self))
            } else {
                Swift.print(fingerprint)
                FileHandle.standardError.write(
                    Data(
                        """
                        certificate \(certificate) (SHA-256 fingerprint above)
                        valid until \(notValidAfter.formatted(.iso8601)); names: \(subjectAlternativeNames.joined(separator: ", "))

                        """.utf8))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the certificate's SHA-256 fingerprint (making the certificate if there is none yet).")

        @OptionGroup var state: StateOptions

        @Flag(help: "Print {fingerprint, certificate, key, notValidBefore, notValidAfter, subjectAlternativeNames} as JSON.")
        var json = false

        func run() async throws {
            let paths = state.paths
            let store = TLSStore(directory: paths.tlsDirectory)
            do {
                // Reading needs no write access: only a missing certificate makes the directory and the files.
                if let identity = try store.load() {
                    try Summary(identity, store: store).print(json: json)
                    return
                }
                try paths.prepare()
                let identity = try await ServeTLS.loadOrCreate(paths: paths, listenHosts: [], logger: TLSCommand.quietLogger)
                try Summary(identity, store: store).print(json: json)
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the certificate with a new one and print its fingerprint.",
            discussion:
                "A running server keeps the old certificate until it restarts. Phones that pinned the old fingerprint must pair again.")

        @OptionGroup var state: StateOptions

        @Flag(help: "Print the new certificate's summary as JSON.")
        var json = false

        func run() async throws {
            let paths = state.paths
            let store = TLSStore(directory: paths.tlsDirectory)
            do {
                try paths.prepare()
                let running = ServerRecord.readRunning(paths: paths)
                let names = await ServeTLS.certificateNames(
                    listenHosts: running.map { [$0.host] + $0.addresses } ?? [], logger: TLSCommand.quietLogger)
                let identity = try store.rotate(names: names)
                try Summary(identity, store: store).print(json: json)
                if running?.tls == true {
                    FileHandle.standardError.write(
                        Data("the running server (pid \(running!.pid)) serves the old certificate until it restarts\n".utf8))
                }
                FileHandle.standardError.write(Data("phones that pinned the old fingerprint must pair again (codex-bridge pair)\n".utf8))
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "codex-bridge.tls")
        logger.logLevel = .error
        return logger
    }
}
