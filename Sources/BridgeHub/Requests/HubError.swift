import BridgeProtocol

/// A request the hub refuses, with its wire code.
package struct HubError: Error {
    package let code: BridgeErrorCode
    package let message: String
    package init(_ code: BridgeErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
