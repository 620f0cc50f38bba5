import BridgeOps
import BridgeStore
import Foundation

/// How `devices allow` gets the check code of the pairing it allows: `--check CODE`, or, on a terminal, typed
/// after the pairing is shown (its phone's name, platform, address and scopes; never the code itself, which the
/// person reads off the phone in their hand). The registry compares it (``DeviceRegistry/decidePairing(id:allow:check:)``).
enum PairingCheckPrompt {
    /// The check code to allow `request` with: `given`, else what the person types on the terminal.
    /// - Throws: ``CommandFailure`` with no `given` and no terminal to ask on, or when nothing is typed.
    static func code(given: String?, request: PairingRequestRecord, isTerminal: Bool = isatty(STDIN_FILENO) == 1) throws -> String {
        try code(given: given, id: request.deviceId, what: "a pairing", description: describe(request), isTerminal: isTerminal)
    }

    /// The check code for the waiting request `id` (a pairing, or a device's request for scopes) described so.
    static func code(given: String?, id: String, what: String, description: String, isTerminal: Bool = isatty(STDIN_FILENO) == 1) throws
        -> String
    {
        if let given { return given }
        guard isTerminal else {
            throw CommandFailure("allowing \(what) takes the check code its phone shows: codex-bridge devices allow \(id) --check CODE")
        }
        Terminal.write(description + "Type the check code the phone shows: ")
        guard let line = readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CommandFailure("no check code typed: nothing was allowed")
        }
        return line
    }

    /// The waiting pairing as the prompt shows it; device-chosen text escaped.
    static func describe(_ request: PairingRequestRecord) -> String {
        let from = [request.platform, request.address.map { "from \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let name = ControlCharacters.escaped(request.name)
        return "Pairing \(request.deviceId): \(name)\(from.isEmpty ? "" : " (\(ControlCharacters.escaped(from)))"), "
            + "scopes \(request.scopes).\n"
    }
}
