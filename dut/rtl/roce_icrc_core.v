/*
 * roce_icrc_core: the ICRC register after one beat of a RoCEv2-over-IPv4 frame
 * (purely combinational).
 *
 * The ICRC (wire-facts.md "ICRC") is the reflected CRC-32 (poly 0xEDB88320)
 * over eight 0xFF bytes, then the frame from byte 14 (the IPv4 header) up to
 * the ICRC, with the bytes routers may change replaced by 0xFF. For an
 * untagged Ethernet / IPv4 (IHL 5) / UDP / BTH frame those are at fixed frame
 * offsets: 15 (TOS), 22 (TTL), 24-25 (IP checksum), 40-41 (UDP checksum) and
 * 46 (BTH FECN/BECN/reserved).
 *
 * How one beat is folded in:
 *  - Each lane is first rewritten by its frame offset (beat * KEEP_WIDTH +
 *    lane): 0x00 before offset 14 and in lanes tkeep leaves out, 0xFF at a
 *    masked offset, the data otherwise.
 *  - The Ethernet header is skipped by starting beat 0 from SEED, the
 *    register that 14 zero bytes take to 0xDEBB20E3 (the register after the
 *    eight 0xFF bytes, rxe's seed). So the 14 zero bytes are harmless.
 *  - For a reflected CRC, running register S over bytes D is the same as
 *    running register 0 over D with S xored into its first 4 bytes. So the
 *    whole beat is one GF(2) matrix: crc_out[i] = ^(lanes & ROW_i), with the
 *    32 rows of KEEP_WIDTH*8 bits worked out at elaboration by crc_row().
 *  - A partial beat is handled as if its missing lanes were zero bytes
 *    appended to the frame: crc_out is then the register after the valid
 *    bytes *and* `fill` zero bytes. roce_icrc_unstep takes `fill` zero bytes
 *    back out (a zero byte is an invertible linear step), giving the register
 *    after the valid bytes only. Full beats have fill == 0, so crc_out is
 *    exact for them and can be fed straight back; a stream module only needs
 *    the unstep once per frame, after a pipeline register.
 *
 * crc_in is the register after the previous beat (ignored on beat 0). The
 * register is not inverted: the ICRC is ~register, sent LSB first, and a
 * frame with its ICRC leaves the register at 0xDEBB20E3.
 *
 * tkeep must be contiguous from bit 0 with at least one bit set.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_icrc_core #
(
    // Width of the data bus in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    // tkeep width (one bit per byte)
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    // Width of the beat index; it must reach past the last masked byte (46)
    parameter BEAT_WIDTH = $clog2((47+KEEP_WIDTH-1)/KEEP_WIDTH+1),
    // Width of the fill count (0..KEEP_WIDTH-1)
    parameter FILL_WIDTH = $clog2(KEEP_WIDTH)
)
(
    // ICRC register after the previous beat of this frame (unused on beat 0)
    input  wire [31:0]            crc_in,
    // Index of this beat in its frame, saturating at all ones
    input  wire [BEAT_WIDTH-1:0]  beat,
    input  wire [DATA_WIDTH-1:0]  tdata,
    input  wire [KEEP_WIDTH-1:0]  tkeep,
    // ICRC register after this beat's valid bytes and `fill` zero bytes
    output wire [31:0]            crc_out,
    // Number of lanes of this beat that tkeep leaves out
    output wire [FILL_WIDTH-1:0]  fill
);

localparam [31:0] POLY = 32'hEDB88320;
localparam BEATS = 2**BEAT_WIDTH;

// The first offset the ICRC covers (the IPv4 header).
localparam ETH_HDR_BYTES = 14;

// The register after the LRH stand-in of eight 0xFF bytes is 0xDEBB20E3; the
// beat matrix starts at offset 0, so SEED is the register that the 14 bytes of
// the Ethernet header, taken as zeros, bring to 0xDEBB20E3: 0xDEBB20E3 stepped
// back over 112 zero bits (roce_icrc_unstep's unstep_bits). The ICRC benches
// compare every ICRC with the C library's, so a wrong seed fails them.
localparam [31:0] SEED = 32'hAE0BACAE;

// parameter check (a failing $error stops both Verilator and Yosys)
initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || DATA_WIDTH % 64 != 0 || DATA_WIDTH < 64 || DATA_WIDTH > 512) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64, and KEEP_WIDTH DATA_WIDTH/8 (instance %m)");
        $finish;
    end
    if ((BEATS - 1) * KEEP_WIDTH < 47) begin
        $error("Error: BEAT_WIDTH too small to reach frame offset 46 (instance %m)");
        $finish;
    end
end

// Row `idx` of the beat matrix: bit p is set when data bit p (bit p of tdata
// is the p-th bit the CRC takes in) flips bit idx of the register at the end
// of the beat. From register 0, a single one bit gives POLY, and every later
// bit of the beat is a zero-bit step.
function [DATA_WIDTH-1:0] crc_row(input integer idx);
    integer p;
    reg [31:0] c;
    begin
        c = POLY;
        crc_row = {DATA_WIDTH{1'b0}};
        for (p = DATA_WIDTH-1; p >= 0; p = p - 1) begin
            crc_row[p] = |(c & (32'd1 << idx));
            c = (c >> 1) ^ (c[0] ? POLY : 32'd0);
        end
    end
endfunction

// Beats (bit b) in which lane `lane` holds a frame offset that is masked to
// 0xFF (ones != 0) or lies before the IPv4 header (ones == 0). The beat index
// saturates at BEATS-1, beyond every header byte, so that bit stays clear.
function [BEATS-1:0] lane_beats(input integer lane, input integer ones);
    integer b, off;
    begin
        lane_beats = {BEATS{1'b0}};
        for (b = 0; b < BEATS - 1; b = b + 1) begin
            off = b * KEEP_WIDTH + lane;
            if (ones != 0)
                lane_beats[b] = off == 15 || off == 22 || off == 24 || off == 25 ||
                    off == 40 || off == 41 || off == 46;
            else
                lane_beats[b] = off < ETH_HDR_BYTES;
        end
    end
endfunction

// Lanes (bit l) where a partial beat's first missing lane at l means fill has
// bit k set (fill = KEEP_WIDTH - l).
function [KEEP_WIDTH-1:0] fill_lanes(input integer k);
    integer l;
    begin
        fill_lanes = {KEEP_WIDTH{1'b0}};
        for (l = 1; l < KEEP_WIDTH; l = l + 1)
            fill_lanes[l] = |((KEEP_WIDTH - l) & (1 << k));
    end
endfunction

// Bytes as the CRC sees them (uncovered and missing lanes 0, masked lanes 1s)
wire [DATA_WIDTH-1:0] covered;

genvar l, i, k;

generate

for (l = 0; l < KEEP_WIDTH; l = l + 1) begin : lane
    localparam [BEATS-1:0] ONES = lane_beats(l, 1);
    localparam [BEATS-1:0] ZERO = lane_beats(l, 0);
    assign covered[8*l +: 8] = (!tkeep[l] || ZERO[beat]) ? 8'h00 :
        ONES[beat] ? 8'hFF : tdata[8*l +: 8];
end

endgenerate

// The register enters as an xor into the first 4 bytes of the beat.
wire [31:0] state = beat == {BEAT_WIDTH{1'b0}} ? SEED : crc_in;
wire [DATA_WIDTH-1:0] folded = covered ^ {{DATA_WIDTH-32{1'b0}}, state};

generate

for (i = 0; i < 32; i = i + 1) begin : row
    localparam [DATA_WIDTH-1:0] MASK = crc_row(i);
    assign crc_out[i] = ^(folded & MASK);
end

endgenerate

// fill: lane l is the first missing one when tkeep[l-1] && !tkeep[l].
wire [KEEP_WIDTH-1:0] first_missing = {tkeep[KEEP_WIDTH-2:0], 1'b0} & ~tkeep;

generate

for (k = 0; k < FILL_WIDTH; k = k + 1) begin : fill_bit
    localparam [KEEP_WIDTH-1:0] LANES = fill_lanes(k);
    assign fill[k] = |(first_missing & LANES);
end

endgenerate

endmodule

`default_nettype wire
`resetall
