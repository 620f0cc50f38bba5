import ArgumentParser
import BridgeStore
import Foundation
import Logging

/// `codex-bridge devices list|revoke`: the paired phones.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List or revoke paired devices.",
        subcommands: [List.self, Revoke.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List paired devices (revoked ones too).")
        @OptionGroup var state: StateOptions

        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() async throws {
            // Nothing paired yet: say so without creating the state directory or the database.
            let devices =
                FileManager.default.fileExists(atPath: state.paths.databaseFile.path)
                ? try await DevicesCommand.openRegistry(state.paths).list().map(Entry.init) : []
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(devices), as: UTF8.self))
            } else if devices.isEmpty {
                print("No paired devices. Run `codex-bridge pair` to pair a phone.")
            } else {
                print(Self.table(devices))
            }
        }

        /// Aligned columns, newest information last.
        static func table(_ devices: [Entry]) -> String {
            let header = ["ID", "NAME", "PLATFORM", "PAIRED", "LAST SEEN", "LAST ADDRESS", "ACKED", "STATUS"]
            let format = DateFormatter()
            format.dateFormat = "yyyy-MM-dd HH:mm"
            let rows = devices.map { device in
                [
                    device.id, device.name, device.platform ?? "-", format.string(from: device.pairedAt),
                    device.lastSeenAt.map(format.string(from:)) ?? "-", device.lastAddress ?? "-", String(device.ackedSeq),
                    device.revoked ? "revoked" : "active",
                ]
            }
            let all = [header] + rows
            let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
            return all.map { row in
                row.enumerated().map { column, cell in
                    column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its token stops working and a running server closes its connections within 2 s."
        )
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The device id (see `codex-bridge devices list`).", valueName: "id"))
        var id: String

        func run() async throws {
            let registry = try DevicesCommand.openRegistry(state.paths)
            do {
                let record = try await registry.revoke(id: id.trimmingCharacters(in: .whitespaces).lowercased())
                print("Revoked device \(record.id) (\(record.name)).")
            } catch let error as DeviceRegistryError {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
        }
    }

    /// One device as `list --json` prints it: never the token hash.
    struct Entry: Encodable {
        var id: String
        var name: String
        var platform: String?
        var pairedAt: Date
        var lastSeenAt: Date?
        var lastAddress: String?
        var ackedSeq: Int64
        var revoked: Bool
        var revokedAt: Date?

        init(_ record: DeviceRecord) {
            id = record.id
            name = record.name
            platform = record.platform
            pairedAt = record.pairedAt
            lastSeenAt = record.lastSeenAt
            lastAddress = record.lastAddress
            ackedSeq = record.ackedSeq
            revoked = record.isRevoked
            revokedAt = record.revokedAt
        }
    }

    static func openRegistry(_ paths: StatePaths) throws -> DeviceRegistry {
        var logger = Logger(label: "codex-bridge.devices")
        logger.logLevel = .warning
        return try ServePairing.openRegistry(paths: paths, logger: logger)
    }
}
