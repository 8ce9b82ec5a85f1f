// Regenerates es6numbers.txt: node gen-es6numbers.js > es6numbers.txt
const samples = ["0000000000000000","8000000000000000","0000000000000001","8000000000000001",
 "7fefffffffffffff","ffefffffffffffff","4340000000000000","c340000000000000","4430000000000000",
 "44b52d02c7e14af5","44b52d02c7e14af6","44b52d02c7e14af7","444b1ae4d6e2ef4e","444b1ae4d6e2ef4f",
 "444b1ae4d6e2ef50","3eb0c6f7a0b5ed8c","3eb0c6f7a0b5ed8d","41b3de4355555553","41b3de4355555554",
 "41b3de4355555555","41b3de4355555556","41b3de4355555557","becbf647612f3696","43143ff3c1cb0959"];
const buf = new DataView(new ArrayBuffer(8));
let seed = 0x2545F491;
function rnd32() { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed; }
function hexOf(x) { buf.setFloat64(0, x); let s = ""; for (let i = 0; i < 8; i++) s += buf.getUint8(i).toString(16).padStart(2, "0"); return s; }
function fromHex(h) { for (let i = 0; i < 8; i++) buf.setUint8(i, parseInt(h.substr(i * 2, 2), 16)); return buf.getFloat64(0); }
const out = [];
for (const h of samples) out.push(h + "," + String(fromHex(h)));
for (let i = 0; i < 4000; i++) {
  buf.setUint32(0, rnd32()); buf.setUint32(4, rnd32());
  const x = buf.getFloat64(0);
  if (!isFinite(x)) continue;
  out.push(hexOf(x) + "," + String(x));
}
for (let i = 0; i < 1000; i++) { const x = (rnd32() * 65536 + (rnd32() & 0xffff)) * (i % 2 ? -1 : 1); out.push(hexOf(x) + "," + String(x)); }
for (let i = 0; i < 2000; i++) {
  const x = Number((rnd32() / 1000).toFixed(rnd32() % 4)) * Math.pow(10, (rnd32() % 50) - 25);
  out.push(hexOf(x) + "," + String(x));
}
console.log(out.join("\n"));
