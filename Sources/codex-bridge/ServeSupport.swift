import BridgeStore
import Foundation
import Logging

/// Small pieces of `serve` kept out of the command.
enum ServeSupport {
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "codex-bridge" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func serverId(paths: StatePaths) throws -> String {
        if let id = try SecretFile.read(paths.serverIdFile), !id.isEmpty { return id }
        let id = UUID().uuidString.lowercased()
        try SecretFile.write(id + "\n", to: paths.serverIdFile)
        return id
    }

    static func writeServerFile(paths: StatePaths, host: String, port: Int, logger: Logger) {
        struct Record: Encodable {
            var pid: Int32
            var host: String
            var port: Int
            var startedAt: Date
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        do {
            let data = try encoder.encode(Record(pid: getpid(), host: host, port: port, startedAt: Date()))
            try SecretFile.write(String(decoding: data, as: UTF8.self), to: paths.serverFile)
        } catch {
            logger.warning("Cannot write the server file", metadata: ["bridge.path": "\(paths.serverFile.path)", "error": "\(error)"])
        }
    }
}
