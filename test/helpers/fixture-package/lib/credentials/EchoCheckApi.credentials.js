'use strict';
// Fixture credential without its own `test`: the Echo node tests it (`testedBy` a node method).
Object.defineProperty(exports, '__esModule', { value: true });
exports.EchoCheckApi = void 0;

class EchoCheckApi {
	constructor() {
		this.name = 'echoCheckApi';
		this.displayName = 'Echo Check API';
		this.properties = [{ displayName: 'Code', name: 'code', type: 'string', default: 'unset' }];
	}
}
exports.EchoCheckApi = EchoCheckApi;
