// Exact 64-bit arithmetic on two 32-bit halves, for the corobench data paths.
// A JavaScript number holds 53 bits and BigInt allocates on every operation, so a 64-bit value
// travels as (hi, lo), each half a signed 32-bit integer (which V8 keeps unboxed): every
// function returns the low half and leaves the high half in r.h, which the caller reads at
// once (r is one shared register). docs/external.md says what this costs per op.
export const r = { h: 0 };

const TWO32 = 4294967296;

// (ah:al * bh:bl) mod 2^64: the low 32x32 product's high half from 16-bit pieces (every
// partial sum below 2^32), the cross terms' low halves with Math.imul.
export function mul(ah, al, bh, bl) {
    const a0 = al & 0xffff, a1 = al >>> 16, b0 = bl & 0xffff, b1 = bl >>> 16;
    let t = a1 * b0 + ((a0 * b0) >>> 16);
    const w1 = t & 0xffff, w2 = t >>> 16;
    t = a0 * b1 + w1;
    r.h = (a1 * b1 + w2 + (t >>> 16) + Math.imul(ah, bl) + Math.imul(al, bh)) | 0;
    return Math.imul(al, bl);
}

export function add(ah, al, bh, bl) {
    const l = (al >>> 0) + (bl >>> 0);
    r.h = (ah + bh + (l >= TWO32 ? 1 : 0)) | 0;
    return l | 0;
}

// Rotate left by 0 < n < 32.
export function rotl(h, l, n) {
    r.h = (h << n) | (l >>> (32 - n));
    return (l << n) | (h >>> (32 - n));
}

// Logical shift right by 0 < n < 32.
export function shr(h, l, n) {
    r.h = h >>> n | 0;
    return (l >>> n) | (h << (32 - n));
}

// The checksum step of workloads/workload.h: ((h rotl 23) ^ v) * 0x9e3779b97f4a7c15.
export function mix(hh, hl, vh, vl) {
    const rl = ((hl << 23) | (hh >>> 9)) ^ vl;
    const rh = ((hh << 23) | (hl >>> 9)) ^ vh;
    return mul(rh, rl, 0x9e3779b9 | 0, 0x7f4a7c15);
}

// A non-negative integer below 2^53 as (hi, lo).
export function fromNumber(x) {
    const lo = x >>> 0;
    r.h = ((x - lo) / TWO32) | 0;
    return lo | 0;
}

export function hex(h, l) {
    return '0x' + (h >>> 0).toString(16).padStart(8, '0') + (l >>> 0).toString(16).padStart(8, '0');
}
