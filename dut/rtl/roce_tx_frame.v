/*
 * roce_tx_frame: builds a RoCEv2 request frame (without the ICRC) at line rate.
 *
 * One descriptor per frame on s_desc_*; the payload (payload_len bytes, none
 * when payload_len is 0) on s_axis_*; the frame on m_axis_*:
 *
 *   Ethernet II (0x0800) / IPv4 (IHL 5, DF, TTL 64, proto 17, total length and
 *   header checksum computed) / UDP (dst 4791, length counting the 4 ICRC bytes
 *   appended by a later stage, checksum 0) / BTH (P_Key 0xFFFF, MigReq 0,
 *   PadCnt computed, TVer 0) / RETH / ImmDt (as the opcode says) / payload /
 *   0-3 zero pad bytes.
 * The first 42 bytes (Ethernet, IPv4, UDP) come from eth_ipv4_udp_header.
 *
 * The headers are 54, 58, 70 or 74 bytes, so the payload lands at a byte
 * offset OFF = header_len mod KEEP_WIDTH that is never 0: each output beat
 * after the header-only beats is carry (the top OFF bytes of the previous
 * payload beat, or the header tail) | payload beat << 8*OFF. OFF takes one of
 * four values per width, so the shifter is a 4:1 mux per lane.
 *
 * Pipeline:
 *   s_desc -> [skid temp] -> B (header built: bytes, checksum, lengths)
 *          -> engine (header-only beats from B, then the tail beat that mixes
 *             the header tail with the first payload beat releases B; then
 *             carry | payload beats, then at most one flush beat)
 *          -> [output skid] -> [frame FIFO] -> m_axis
 * B is refilled in the same cycle it is released, so back-to-back frames go
 * out without idle beats: with no stalls a frame takes ceil(len/KEEP_WIDTH)
 * cycles. The frame FIFO (axis_frame_fifo) lets a frame out once its last
 * beat is in, so m_axis_tvalid never drops inside a frame however the
 * payload comes; it adds the frame's length plus 2 cycles of latency. Every ready is driven from registers only (no combinational path
 * from one port to another).
 *
 * The payload is consumed by count (payload_len); the bytes past payload_len
 * in the last beat are masked to zero (they become the pad). If the payload
 * stream disagrees with payload_len (tlast or tkeep not where expected), or a
 * payload beat has tuser set, or the opcode is not one this module builds,
 * the frame is still sent with the descriptor's length but marked bad with
 * m_axis_tuser on its last beat.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_tx_frame #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = (DATA_WIDTH/8),
    // the store-and-forward FIFO before m_axis (see the end): at least this
    // many bytes, in a power-of-2 number of beats
    parameter FIFO_BYTES = 8192
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Descriptor, one per frame
     */
    input  wire                   s_desc_valid,
    output wire                   s_desc_ready,
    input  wire [47:0]            s_desc_dst_mac,
    input  wire [47:0]            s_desc_src_mac,
    input  wire [31:0]            s_desc_src_ip,
    input  wire [31:0]            s_desc_dst_ip,
    input  wire [15:0]            s_desc_ip_id,
    input  wire [7:0]             s_desc_tos,
    input  wire [15:0]            s_desc_udp_sport,
    input  wire [7:0]             s_desc_opcode,
    input  wire                   s_desc_solicited,
    input  wire                   s_desc_ack_req,
    input  wire [23:0]            s_desc_dest_qp,
    input  wire [23:0]            s_desc_psn,
    input  wire [63:0]            s_desc_reth_va,
    input  wire [31:0]            s_desc_reth_rkey,
    input  wire [31:0]            s_desc_reth_len,
    input  wire [31:0]            s_desc_imm,
    input  wire [12:0]            s_desc_payload_len,

    /*
     * Payload
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    /*
     * Frame (no ICRC, no FCS)
     */
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire                   m_axis_tuser
);

// ---------------------------------------------------------------------------
// Constants

localparam BASE_HDR_BYTES = 54;     // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12
localparam RETH_BYTES = 16;
localparam IMM_BYTES = 4;
localparam MAX_HDR_BYTES = BASE_HDR_BYTES + RETH_BYTES + IMM_BYTES;
localparam [15:0] ROCE_UDP_PORT = 16'd4791;

// header kinds: {RETH, ImmDt}
localparam HDR0 = BASE_HDR_BYTES;
localparam HDR1 = BASE_HDR_BYTES + IMM_BYTES;
localparam HDR2 = BASE_HDR_BYTES + RETH_BYTES;
localparam HDR3 = BASE_HDR_BYTES + RETH_BYTES + IMM_BYTES;

// lane offset of the first payload byte, and header-only beats, per kind
localparam OFF0 = HDR0 % KEEP_WIDTH;
localparam OFF1 = HDR1 % KEEP_WIDTH;
localparam OFF2 = HDR2 % KEEP_WIDTH;
localparam OFF3 = HDR3 % KEEP_WIDTH;
localparam NH0 = HDR0 / KEEP_WIDTH;
localparam NH1 = HDR1 / KEEP_WIDTH;
localparam NH2 = HDR2 / KEEP_WIDTH;
localparam NH3 = HDR3 / KEEP_WIDTH;

// header register: a whole number of beats
localparam HDR_BEATS = (MAX_HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam HDR_WIDTH = HDR_BEATS * DATA_WIDTH;

// counters: bytes still to go (<= 74 + 8191 + 3) and header-only beats
localparam CNT_WIDTH = 14;
localparam NH_WIDTH = 4;

localparam [CNT_WIDTH-1:0] KEEP_BYTES = KEEP_WIDTH[CNT_WIDTH-1:0];

// bus width check
initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("Error: DATA_WIDTH must be 64..512, a multiple of 64 (instance %m)");
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("Error: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
        $finish;
    end
end

// ---------------------------------------------------------------------------
// The opcode table (the only place that knows which headers an opcode has):
// {supported, RETH, ImmDt}. RC 0x00-0x0B and UC 0x20-0x2B SEND / RDMA WRITE.

function [2:0] opcode_table(input [7:0] op);
    begin
        if (op[7:5] != 3'b000 && op[7:5] != 3'b001) begin
            opcode_table = 3'b000;
        end else begin
            case (op[4:0])
                5'h00: opcode_table = 3'b100; // SEND First
                5'h01: opcode_table = 3'b100; // SEND Middle
                5'h02: opcode_table = 3'b100; // SEND Last
                5'h03: opcode_table = 3'b101; // SEND Last with Immediate
                5'h04: opcode_table = 3'b100; // SEND Only
                5'h05: opcode_table = 3'b101; // SEND Only with Immediate
                5'h06: opcode_table = 3'b110; // RDMA WRITE First
                5'h07: opcode_table = 3'b100; // RDMA WRITE Middle
                5'h08: opcode_table = 3'b100; // RDMA WRITE Last
                5'h09: opcode_table = 3'b101; // RDMA WRITE Last with Immediate
                5'h0A: opcode_table = 3'b110; // RDMA WRITE Only
                5'h0B: opcode_table = 3'b111; // RDMA WRITE Only with Immediate
                default: opcode_table = 3'b000;
            endcase
        end
    end
endfunction

// ---------------------------------------------------------------------------
// Helpers

// byte mask of the first n lanes (n >= KEEP_WIDTH: all)
function [KEEP_WIDTH-1:0] lane_mask(input [CNT_WIDTH-1:0] n);
    integer i;
    begin
        for (i = 0; i < KEEP_WIDTH; i = i + 1)
            lane_mask[i] = (n > i[CNT_WIDTH-1:0]);
    end
endfunction

function [DATA_WIDTH-1:0] expand_mask(input [KEEP_WIDTH-1:0] k);
    integer i;
    begin
        for (i = 0; i < KEEP_WIDTH; i = i + 1)
            expand_mask[i*8 +: 8] = {8{k[i]}};
    end
endfunction

// payload beat into its lanes of the current output beat
function [DATA_WIDTH-1:0] shift_up(input [DATA_WIDTH-1:0] d, input [1:0] kind);
    begin
        case (kind)
            2'd0: shift_up = d << (8*OFF0);
            2'd1: shift_up = d << (8*OFF1);
            2'd2: shift_up = d << (8*OFF2);
            default: shift_up = d << (8*OFF3);
        endcase
    end
endfunction

// the bytes of a payload beat that spill into the next output beat
function [DATA_WIDTH-1:0] shift_down(input [DATA_WIDTH-1:0] d, input [1:0] kind);
    begin
        case (kind)
            2'd0: shift_down = d >> (8*(KEEP_WIDTH-OFF0));
            2'd1: shift_down = d >> (8*(KEEP_WIDTH-OFF1));
            2'd2: shift_down = d >> (8*(KEEP_WIDTH-OFF2));
            default: shift_down = d >> (8*(KEEP_WIDTH-OFF3));
        endcase
    end
endfunction

function [CNT_WIDTH-1:0] kind_off(input [1:0] kind);
    begin
        case (kind)
            2'd0: kind_off = OFF0[CNT_WIDTH-1:0];
            2'd1: kind_off = OFF1[CNT_WIDTH-1:0];
            2'd2: kind_off = OFF2[CNT_WIDTH-1:0];
            default: kind_off = OFF3[CNT_WIDTH-1:0];
        endcase
    end
endfunction

function [NH_WIDTH-1:0] kind_hdr_beats(input [1:0] kind);
    begin
        case (kind)
            2'd0: kind_hdr_beats = NH0[NH_WIDTH-1:0];
            2'd1: kind_hdr_beats = NH1[NH_WIDTH-1:0];
            2'd2: kind_hdr_beats = NH2[NH_WIDTH-1:0];
            default: kind_hdr_beats = NH3[NH_WIDTH-1:0];
        endcase
    end
endfunction

// ---------------------------------------------------------------------------
// Descriptor skid register (s_desc_ready comes from a register)

localparam DESC_WIDTH = 48+48+32+32+16+8+16+8+1+1+24+24+64+32+32+32+13;

wire [DESC_WIDTH-1:0] s_desc = {
    s_desc_dst_mac, s_desc_src_mac, s_desc_src_ip, s_desc_dst_ip, s_desc_ip_id,
    s_desc_tos, s_desc_udp_sport, s_desc_opcode, s_desc_solicited, s_desc_ack_req,
    s_desc_dest_qp, s_desc_psn, s_desc_reth_va, s_desc_reth_rkey, s_desc_reth_len,
    s_desc_imm, s_desc_payload_len
};

reg s_desc_ready_reg = 1'b0;
reg temp_desc_valid_reg = 1'b0, temp_desc_valid_next;
reg [DESC_WIDTH-1:0] temp_desc_reg = {DESC_WIDTH{1'b0}};

// B: the next frame's header, ready to go out
reg b_valid_reg = 1'b0, b_valid_next;
reg [HDR_WIDTH-1:0] b_hdr_reg = {HDR_WIDTH{1'b0}};
reg [NH_WIDTH-1:0] b_hdr_beats_reg = {NH_WIDTH{1'b0}};  // header-only beats left
reg [1:0] b_kind_reg = 2'd0;
reg [CNT_WIDTH-1:0] b_rem_reg = {CNT_WIDTH{1'b0}};          // bytes from the tail beat on
reg [CNT_WIDTH-1:0] b_in_rem_reg = {CNT_WIDTH{1'b0}};       // payload bytes
reg b_err_reg = 1'b0;

reg store_desc_to_b;
reg store_desc_to_temp;
reg store_temp_to_b;
reg b_load_ready;     // B takes a descriptor this cycle

assign s_desc_ready = s_desc_ready_reg;

// ---------------------------------------------------------------------------
// Header build (combinational, from the descriptor going into B)

wire [DESC_WIDTH-1:0] src_desc = store_temp_to_b ? temp_desc_reg : s_desc;

wire [47:0] desc_dst_mac;
wire [47:0] desc_src_mac;
wire [31:0] desc_src_ip;
wire [31:0] desc_dst_ip;
wire [15:0] desc_ip_id;
wire [7:0]  desc_tos;
wire [15:0] desc_udp_sport;
wire [7:0]  desc_opcode;
wire        desc_solicited;
wire        desc_ack_req;
wire [23:0] desc_dest_qp;
wire [23:0] desc_psn;
wire [63:0] desc_reth_va;
wire [31:0] desc_reth_rkey;
wire [31:0] desc_reth_len;
wire [31:0] desc_imm;
wire [12:0] desc_payload_len;

assign {
    desc_dst_mac, desc_src_mac, desc_src_ip, desc_dst_ip, desc_ip_id,
    desc_tos, desc_udp_sport, desc_opcode, desc_solicited, desc_ack_req,
    desc_dest_qp, desc_psn, desc_reth_va, desc_reth_rkey, desc_reth_len,
    desc_imm, desc_payload_len
} = src_desc;

reg [HDR_WIDTH-1:0] build_hdr;
reg [1:0] build_kind;
reg build_err;
reg [CNT_WIDTH-1:0] build_rem;
reg [1:0] build_pad;
reg [13:0] build_padded;
reg [15:0] build_ip_len;
reg [15:0] build_udp_len;
reg [15:0] build_ext_len;
reg [2:0] build_opcode_info;
reg [8*MAX_HDR_BYTES-1:0] hdr_bytes;
integer i;

// header kind and lengths
always @* begin
    build_opcode_info = opcode_table(desc_opcode);
    build_err = !build_opcode_info[2];
    build_kind = build_opcode_info[1:0];

    build_pad = 2'd0 - desc_payload_len[1:0];
    build_padded = {1'b0, desc_payload_len} + {12'd0, build_pad};
    build_ext_len = (build_kind[1] ? 16'd16 : 16'd0) + (build_kind[0] ? 16'd4 : 16'd0);
    // UDP: 8 + BTH 12 + ext + payload + pad + ICRC 4
    build_udp_len = 16'd24 + build_ext_len + {2'd0, build_padded};
    build_ip_len = 16'd20 + build_udp_len;

    // from the tail beat on: OFF header bytes, the payload and the pad
    build_rem = kind_off(build_kind) + build_padded;
end

// Ethernet II / IPv4 / UDP: bytes 0-41
wire [8*42-1:0] build_eth_ip_udp;

eth_ipv4_udp_header eth_ipv4_udp_header_inst (
    .dst_mac(desc_dst_mac),
    .src_mac(desc_src_mac),
    .src_ip(desc_src_ip),
    .dst_ip(desc_dst_ip),
    .ip_id(desc_ip_id),
    .tos(desc_tos),
    .ip_total_length(build_ip_len),
    .udp_src_port(desc_udp_sport),
    .udp_dst_port(ROCE_UDP_PORT),
    .udp_length(build_udp_len),
    .header(build_eth_ip_udp)
);

// the header bytes, byte n in hdr_bytes[8*n +: 8]
always @* begin
    hdr_bytes = {8*MAX_HDR_BYTES{1'b0}};
    hdr_bytes[0 +: 8*42] = build_eth_ip_udp;
    // BTH
    hdr_bytes[8*42 +: 8] = desc_opcode;
    hdr_bytes[8*43 +: 8] = {desc_solicited, 1'b0, build_pad, 4'h0};
    hdr_bytes[8*44 +: 8] = 8'hFF;
    hdr_bytes[8*45 +: 8] = 8'hFF;
    // byte 46 (FECN, BECN, reserved) stays 0
    for (i = 0; i < 3; i = i + 1) begin
        hdr_bytes[8*(47+i) +: 8] = desc_dest_qp[8*(2-i) +: 8];
        hdr_bytes[8*(51+i) +: 8] = desc_psn[8*(2-i) +: 8];
    end
    hdr_bytes[8*50 +: 8] = {desc_ack_req, 7'd0};
    // extension headers
    if (build_kind[1]) begin
        for (i = 0; i < 8; i = i + 1)
            hdr_bytes[8*(54+i) +: 8] = desc_reth_va[8*(7-i) +: 8];
        for (i = 0; i < 4; i = i + 1) begin
            hdr_bytes[8*(62+i) +: 8] = desc_reth_rkey[8*(3-i) +: 8];
            hdr_bytes[8*(66+i) +: 8] = desc_reth_len[8*(3-i) +: 8];
        end
        if (build_kind[0]) begin
            for (i = 0; i < 4; i = i + 1)
                hdr_bytes[8*(70+i) +: 8] = desc_imm[8*(3-i) +: 8];
        end
    end else if (build_kind[0]) begin
        for (i = 0; i < 4; i = i + 1)
            hdr_bytes[8*(54+i) +: 8] = desc_imm[8*(3-i) +: 8];
    end

    build_hdr = {{(HDR_WIDTH-8*MAX_HDR_BYTES){1'b0}}, hdr_bytes};
end

// ---------------------------------------------------------------------------
// Output engine

// current frame, after its tail beat
reg e_active_reg = 1'b0, e_active_next;
reg [1:0] e_kind_reg = 2'd0, e_kind_next;
reg [CNT_WIDTH-1:0] e_rem_reg = {CNT_WIDTH{1'b0}}, e_rem_next;
reg [CNT_WIDTH-1:0] e_in_rem_reg = {CNT_WIDTH{1'b0}}, e_in_rem_next;
reg e_err_reg = 1'b0, e_err_next;
reg [DATA_WIDTH-1:0] carry_reg = {DATA_WIDTH{1'b0}}, carry_next;

// internal stream into the output skid
reg  [DATA_WIDTH-1:0] m_axis_tdata_int;
reg  [KEEP_WIDTH-1:0] m_axis_tkeep_int;
reg                   m_axis_tvalid_int;
reg                   m_axis_tready_int_reg = 1'b0;
reg                   m_axis_tlast_int;
reg                   m_axis_tuser_int;
wire                  m_axis_tready_int_early;

// which beat goes out next (all from registers)
wire hdr_beat  = !e_active_reg && b_valid_reg && (b_hdr_beats_reg != {NH_WIDTH{1'b0}});
wire tail_beat = !e_active_reg && b_valid_reg && (b_hdr_beats_reg == {NH_WIDTH{1'b0}});
wire post_beat = e_active_reg;
wire [CNT_WIDTH-1:0] in_rem = e_active_reg ? e_in_rem_reg : b_in_rem_reg;
wire [CNT_WIDTH-1:0] out_rem = e_active_reg ? e_rem_reg : b_rem_reg;
wire [1:0] kind = e_active_reg ? e_kind_reg : b_kind_reg;
wire need_in = (tail_beat || post_beat) && (in_rem != {CNT_WIDTH{1'b0}});
wire in_last = in_rem <= KEEP_BYTES;
wire out_last = !hdr_beat && (out_rem <= KEEP_BYTES);

// from registers only: the output skid's ready and the engine state
assign s_axis_tready = m_axis_tready_int_reg && need_in;

wire fire = m_axis_tready_int_reg && (hdr_beat || tail_beat || post_beat) &&
            (!need_in || s_axis_tvalid);

wire [KEEP_WIDTH-1:0] in_keep = lane_mask(in_rem);
wire [DATA_WIDTH-1:0] in_data = need_in ? (s_axis_tdata & expand_mask(in_keep)) : {DATA_WIDTH{1'b0}};
wire in_err = need_in && (s_axis_tuser || (s_axis_tlast != in_last) || (s_axis_tkeep != in_keep));
wire frame_err = (e_active_reg ? e_err_reg : b_err_reg) || in_err;
wire [DATA_WIDTH-1:0] low_part = e_active_reg ? carry_reg : b_hdr_reg[DATA_WIDTH-1:0];

always @* begin
    m_axis_tdata_int = low_part | shift_up(in_data, kind);
    m_axis_tkeep_int = hdr_beat ? {KEEP_WIDTH{1'b1}} : lane_mask(out_rem);
    m_axis_tvalid_int = fire;
    m_axis_tlast_int = out_last;
    m_axis_tuser_int = out_last && frame_err;

    e_active_next = e_active_reg;
    e_kind_next = e_kind_reg;
    e_rem_next = e_rem_reg;
    e_in_rem_next = e_in_rem_reg;
    e_err_next = e_err_reg;
    carry_next = carry_reg;

    if (fire && !hdr_beat) begin
        // a tail or post-header beat: the frame goes on unless this is its last
        e_active_next = !out_last;
        e_kind_next = kind;
        e_rem_next = out_rem - KEEP_BYTES;
        e_in_rem_next = in_last ? {CNT_WIDTH{1'b0}} : in_rem - KEEP_BYTES;
        e_err_next = frame_err;
        carry_next = shift_down(in_data, kind);
    end
end

// ---------------------------------------------------------------------------
// Descriptor path control

always @* begin
    // B is free, or its frame's tail beat goes out this cycle
    b_load_ready = !b_valid_reg || (fire && tail_beat);

    b_valid_next = b_valid_reg;
    temp_desc_valid_next = temp_desc_valid_reg;
    store_desc_to_b = 1'b0;
    store_desc_to_temp = 1'b0;
    store_temp_to_b = 1'b0;

    if (fire && tail_beat) begin
        b_valid_next = 1'b0;
    end

    if (s_desc_ready_reg) begin
        // (temp is empty whenever s_desc_ready is high)
        if (b_load_ready) begin
            b_valid_next = s_desc_valid;
            store_desc_to_b = s_desc_valid;
        end else begin
            temp_desc_valid_next = s_desc_valid;
            store_desc_to_temp = s_desc_valid;
        end
    end else if (b_load_ready) begin
        b_valid_next = temp_desc_valid_reg;
        temp_desc_valid_next = 1'b0;
        store_temp_to_b = temp_desc_valid_reg;
    end
end

// ready next cycle: B can take one this cycle, or temp stays empty
wire s_desc_ready_early = b_load_ready || (!temp_desc_valid_reg && (!b_valid_reg || !s_desc_valid));

always @(posedge clk) begin
    s_desc_ready_reg <= s_desc_ready_early;
    temp_desc_valid_reg <= temp_desc_valid_next;
    b_valid_reg <= b_valid_next;

    if (store_desc_to_temp) begin
        temp_desc_reg <= s_desc;
    end

    if (store_desc_to_b || store_temp_to_b) begin
        b_hdr_reg <= build_hdr;
        b_hdr_beats_reg <= kind_hdr_beats(build_kind);
        b_kind_reg <= build_kind;
        b_rem_reg <= build_rem;
        b_in_rem_reg <= {1'b0, desc_payload_len};
        b_err_reg <= build_err;
    end else if (fire && hdr_beat) begin
        b_hdr_reg <= b_hdr_reg >> DATA_WIDTH;
        b_hdr_beats_reg <= b_hdr_beats_reg - 1'b1;
    end

    e_active_reg <= e_active_next;
    e_kind_reg <= e_kind_next;
    e_rem_reg <= e_rem_next;
    e_in_rem_reg <= e_in_rem_next;
    e_err_reg <= e_err_next;
    carry_reg <= carry_next;

    if (rst) begin
        s_desc_ready_reg <= 1'b0;
        temp_desc_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        e_active_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Output skid register (m_axis_tready_int comes from a register)

wire [DATA_WIDTH-1:0] frame_tdata;
wire [KEEP_WIDTH-1:0] frame_tkeep;
wire                  frame_tvalid;
wire                  frame_tready;
wire                  frame_tlast;
wire                  frame_tuser;

reg [DATA_WIDTH-1:0] m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                  m_axis_tvalid_reg = 1'b0, m_axis_tvalid_next;
reg                  m_axis_tlast_reg = 1'b0;
reg                  m_axis_tuser_reg = 1'b0;

reg [DATA_WIDTH-1:0] temp_m_axis_tdata_reg = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] temp_m_axis_tkeep_reg = {KEEP_WIDTH{1'b0}};
reg                  temp_m_axis_tvalid_reg = 1'b0, temp_m_axis_tvalid_next;
reg                  temp_m_axis_tlast_reg = 1'b0;
reg                  temp_m_axis_tuser_reg = 1'b0;

reg store_axis_int_to_output;
reg store_axis_int_to_temp;
reg store_axis_temp_to_output;

assign frame_tdata  = m_axis_tdata_reg;
assign frame_tkeep  = m_axis_tkeep_reg;
assign frame_tvalid = m_axis_tvalid_reg;
assign frame_tlast  = m_axis_tlast_reg;
assign frame_tuser  = m_axis_tuser_reg;

// ready next cycle: the output drains, or temp stays empty
assign m_axis_tready_int_early = frame_tready || (!temp_m_axis_tvalid_reg && (!m_axis_tvalid_reg || !m_axis_tvalid_int));

always @* begin
    m_axis_tvalid_next = m_axis_tvalid_reg;
    temp_m_axis_tvalid_next = temp_m_axis_tvalid_reg;

    store_axis_int_to_output = 1'b0;
    store_axis_int_to_temp = 1'b0;
    store_axis_temp_to_output = 1'b0;

    if (m_axis_tready_int_reg) begin
        if (frame_tready || !m_axis_tvalid_reg) begin
            m_axis_tvalid_next = m_axis_tvalid_int;
            store_axis_int_to_output = 1'b1;
        end else begin
            temp_m_axis_tvalid_next = m_axis_tvalid_int;
            store_axis_int_to_temp = 1'b1;
        end
    end else if (frame_tready) begin
        m_axis_tvalid_next = temp_m_axis_tvalid_reg;
        temp_m_axis_tvalid_next = 1'b0;
        store_axis_temp_to_output = 1'b1;
    end
end

always @(posedge clk) begin
    m_axis_tvalid_reg <= m_axis_tvalid_next;
    m_axis_tready_int_reg <= m_axis_tready_int_early;
    temp_m_axis_tvalid_reg <= temp_m_axis_tvalid_next;

    if (store_axis_int_to_output) begin
        m_axis_tdata_reg <= m_axis_tdata_int;
        m_axis_tkeep_reg <= m_axis_tkeep_int;
        m_axis_tlast_reg <= m_axis_tlast_int;
        m_axis_tuser_reg <= m_axis_tuser_int;
    end else if (store_axis_temp_to_output) begin
        m_axis_tdata_reg <= temp_m_axis_tdata_reg;
        m_axis_tkeep_reg <= temp_m_axis_tkeep_reg;
        m_axis_tlast_reg <= temp_m_axis_tlast_reg;
        m_axis_tuser_reg <= temp_m_axis_tuser_reg;
    end

    if (store_axis_int_to_temp) begin
        temp_m_axis_tdata_reg <= m_axis_tdata_int;
        temp_m_axis_tkeep_reg <= m_axis_tkeep_int;
        temp_m_axis_tlast_reg <= m_axis_tlast_int;
        temp_m_axis_tuser_reg <= m_axis_tuser_int;
    end

    if (rst) begin
        m_axis_tvalid_reg <= 1'b0;
        m_axis_tready_int_reg <= 1'b0;
        temp_m_axis_tvalid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Store and forward: a frame goes out once it is whole, so that a payload
// that comes late (a stalling memory) never leaves a gap inside a frame
// (axis_frame_fifo: a MAC sends such a frame broken). 8 KB holds a frame of
// the largest PMTU (4096 + 74 header bytes) and most of the next: the MAC
// (100 Gb/s) drains slower than a beat per cycle fills, so the next frame is
// whole before the last beat of one is out.

axis_frame_fifo #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .DEPTH(1 << $clog2((FIFO_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH))
)
frame_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(frame_tdata),
    .s_axis_tkeep(frame_tkeep),
    .s_axis_tvalid(frame_tvalid),
    .s_axis_tready(frame_tready),
    .s_axis_tlast(frame_tlast),
    .s_axis_tuser(frame_tuser),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

endmodule

`default_nettype wire
`resetall
