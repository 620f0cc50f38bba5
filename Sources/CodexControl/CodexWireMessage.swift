import BridgeProtocol
import Foundation

/// One line of `codex app-server`'s stdio JSON-RPC (one JSON object per line, no `"jsonrpc"` member).
enum CodexWireMessage: Sendable, Hashable {
    /// An answer to one of our requests.
    case response(id: JSONValue, result: JSONValue)
    /// An error answer to one of our requests (`id` may be null when Codex could not parse ours).
    case errorResponse(id: JSONValue, code: Int, message: String, data: JSONValue?)
    /// A notification from Codex (`paramsJSON`: its params exactly as written, when parsed from a line).
    case notification(method: String, params: JSONValue, paramsJSON: String? = nil)
    /// A request from Codex to us.
    case request(id: JSONValue, method: String, params: JSONValue)

    /// Parses one line. Unknown members are ignored; a line that is no JSON-RPC object throws.
    init(line: some StringProtocol) throws(CodexError) {
        try self.init(json: Data(line.utf8))
    }

    /// Parses one line of codex's stdout.
    init(json line: Data) throws(CodexError) {
        let value: JSONValue
        let paramsJSON: String?
        do {
            (value, paramsJSON) = try JSONValue.parsing(line, keepingTextOf: "params")
        } catch {
            throw .protocolViolation("not JSON: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        guard case .object(let object) = value else {
            throw .protocolViolation("not a JSON object: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        let id = object["id"]
        if let method = object["method"]?.stringValue {
            let params = object["params"] ?? .null
            if let id, id != .null {
                self = .request(id: id, method: method, params: params)
            } else {
                self = .notification(method: method, params: params, paramsJSON: paramsJSON)
            }
        } else if let error = object["error"] {
            let code = error["code"]?.intValue ?? 0
            let message = error["message"]?.stringValue ?? "\(error)"
            self = .errorResponse(id: id ?? .null, code: code, message: message, data: error["data"])
        } else if let id, let result = object["result"] {
            self = .response(id: id, result: result)
        } else {
            throw .protocolViolation("neither request, notification nor response: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
    }

    /// The line to write (JSON plus `\n`).
    func encoded() throws(CodexError) -> [UInt8] {
        var object: [String: JSONValue]
        switch self {
        case .response(let id, let result):
            object = ["id": id, "result": result]
        case .errorResponse(let id, let code, let message, let data):
            var error: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
            if let data { error["data"] = data }
            object = ["id": id, "error": .object(error)]
        case .notification(let method, let params, _):
            object = ["method": .string(method)]
            if params != .null { object["params"] = params }
        case .request(let id, let method, let params):
            object = ["id": id, "method": .string(method), "params": params]
        }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            var bytes = Array(try encoder.encode(JSONValue.object(object)))
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        } catch {
            throw .protocolViolation("cannot encode \(self): \(error)")
        }
    }
}
