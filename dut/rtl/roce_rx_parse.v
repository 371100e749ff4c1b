/*
 * roce_rx_parse: the endpoint's receive classifier.
 *
 * Sits after roce_icrc_check. Every frame on s_axis (Ethernet II without FCS)
 * ends in exactly one of:
 *   - an ARP descriptor          (m_arp_*,  counted in rx_arp)
 *   - a CM descriptor            (m_cm_*,   counted in rx_cm)
 *   - a RoCE Acknowledge         (m_ack_*,  counted in rx_ack)
 *   - a CNP pulse                (cnp_pulse / cnp_qp, counted in rx_cnp)
 *   - one of the drop counters   (drop_bad_icrc, drop_not_for_us,
 *                                 drop_malformed, drop_unsupported)
 * and is counted in rx_frames, so at all times
 *   rx_frames = rx_arp + rx_cm + rx_ack + rx_cnp + drop_bad_icrc
 *             + drop_not_for_us + drop_malformed + drop_unsupported.
 * All counters are 32 bits and WRAP (modulo 2^32, so that identity always
 * holds; software takes differences).
 *
 * Classification, first match wins (L = frame length in bytes, B[n] = byte n):
 *   L < 14                                            malformed (runt)
 *   dst MAC neither cfg_mac nor broadcast             not for us
 *   Ethertype 0x0806 (ARP):
 *     L < 42                                          malformed (truncated)
 *     htype != 1, ptype != 0x0800, hlen != 6,
 *     plen != 4 or oper not 1/2                       unsupported
 *     else                                            ARP
 *   Ethertype 0x0800 (IPv4):
 *     L < 34                                          malformed (truncated)
 *     version != 4 or IHL != 5                        malformed (bad IHL:
 *                                                     options are not taken)
 *     MF set or fragment offset != 0                  malformed (fragment)
 *     total length < 28 or 14 + total length > L      malformed
 *     dst MAC != cfg_mac (broadcast) or
 *     dst IP != cfg_ip                                not for us
 *     protocol != 17                                  unsupported
 *     UDP length != total length - 20                 malformed (UDP length
 *                                                     inconsistent with IP)
 *     UDP dst port 17185 (CM): UDP length 72          CM, else malformed
 *     UDP dst port 4791 (RoCEv2):
 *       UDP length < 24 (UDP + BTH + ICRC)            malformed
 *       tuser on the last beat                        bad ICRC
 *       BTH TVer != 0                                 unsupported
 *       opcode 0x11 (RC Acknowledge): UDP length < 28 malformed (no AETH),
 *                                     else            ACK
 *       opcode 0x81 (CNP)                             CNP
 *       any other opcode                              unsupported
 *     any other UDP port                              unsupported
 *   any other Ethertype (VLAN tags 0x8100 / 0x88A8 / 0x9100, IPv6 0x86DD,
 *   RoCE v1 0x8915, ...)                              unsupported
 * Bytes after the IP datagram (Ethernet padding) are ignored. s_axis_tuser
 * is looked at only for RoCEv2 frames (the ICRC verdict of roce_icrc_check);
 * for every other frame it is meaningless and ignored. The IPv4 header
 * checksum is not checked (a RoCE packet's IP header is covered by the ICRC).
 *
 * Descriptors are registered and held until accepted (valid/ready); a new
 * descriptor on a port waits until the previous one was taken. cnp_pulse is
 * high for one cycle; cnp_qp holds the QP of the last CNP.
 *
 * Pipeline:
 *   capture: the first HDR_BYTES (106) bytes of the frame are written into
 *     cap_reg beat by beat, the length is counted (saturating at 2^17-1,
 *     which is more than any header can claim, so frames of any length are
 *     handled).
 *   D: on the last beat, the header bytes, the length and tuser move to the
 *     decision register D (or stay in cap_reg, the skid slot, if D is still
 *     waiting for a busy descriptor port; s_axis_tready then drops until D
 *     moves on). The next frame is captured while D decides.
 *   D decides from registers and commits in one cycle: loads the descriptor
 *     register, pulses cnp_pulse, bumps the counters.
 * With every descriptor port ready the input is never stalled: one frame per
 * cycle even for one-beat frames. s_axis_tready and every m_*_valid come from
 * registers. Bytes beyond the frame's length left in cap_reg from an earlier
 * frame are never looked at: every field is read only after a length check
 * proves it lies inside the frame.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module roce_rx_parse #
(
    // Width of the AXI stream in bits (64..512, a multiple of 64)
    parameter DATA_WIDTH = 512,
    // tkeep signal width (bytes per beat)
    parameter KEEP_WIDTH = DATA_WIDTH/8
)
(
    input  wire                   clk,
    input  wire                   rst,

    /*
     * Configuration (static during operation)
     */
    input  wire [47:0]            cfg_mac,
    input  wire [31:0]            cfg_ip,

    /*
     * AXI input: Ethernet frames without FCS; tuser on the last beat = bad
     * ICRC (from roce_icrc_check)
     */
    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    /*
     * ARP request / reply
     */
    output wire                   m_arp_valid,
    input  wire                   m_arp_ready,
    output wire [15:0]            m_arp_oper,
    output wire [47:0]            m_arp_sha,
    output wire [31:0]            m_arp_spa,
    output wire [47:0]            m_arp_tha,
    output wire [31:0]            m_arp_tpa,

    /*
     * CM frame (UDP to port 17185, 64-byte payload)
     */
    output wire                   m_cm_valid,
    input  wire                   m_cm_ready,
    output wire [47:0]            m_cm_src_mac,
    output wire [31:0]            m_cm_src_ip,
    output wire [15:0]            m_cm_src_port,
    // big-endian, as the frame reads: payload byte 0 in bits [511:504],
    // byte 63 in bits [7:0]
    output wire [511:0]           m_cm_payload,

    /*
     * RoCEv2 RC Acknowledge (ACK, NAK, RNR NAK)
     */
    output wire                   m_ack_valid,
    input  wire                   m_ack_ready,
    output wire [31:0]            m_ack_src_ip,
    output wire [23:0]            m_ack_dest_qp,
    output wire [23:0]            m_ack_psn,
    output wire [7:0]             m_ack_syndrome,
    output wire [23:0]            m_ack_msn,

    /*
     * CNP: one-cycle pulse; cnp_qp is the CNP's destination QP
     */
    output wire                   cnp_pulse,
    output wire [23:0]            cnp_qp,

    /*
     * Counters (32-bit, wrapping)
     */
    output wire [31:0]            rx_frames,
    output wire [31:0]            rx_arp,
    output wire [31:0]            rx_cm,
    output wire [31:0]            rx_ack,
    output wire [31:0]            rx_cnp,
    output wire [31:0]            drop_bad_icrc,
    output wire [31:0]            drop_not_for_us,
    output wire [31:0]            drop_malformed,
    output wire [31:0]            drop_unsupported
);

// ---------------------------------------------------------------------------
// Constants

// Ethernet 14 + IPv4 20 + UDP 8 + CM payload 64: the last byte ever looked at
localparam HDR_BYTES = 106;
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam BEAT_WIDTH = $clog2(HDR_BEATS + 1);
localparam KEEP_COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);

// frame length, saturating; 14 + the largest IPv4 total length fits
localparam LEN_WIDTH = 17;

localparam [15:0] ETHERTYPE_IPV4 = 16'h0800;
localparam [15:0] ETHERTYPE_ARP = 16'h0806;
localparam [15:0] UDP_PORT_CM = 16'd17185;
localparam [15:0] UDP_PORT_ROCE = 16'd4791;
localparam [15:0] CM_UDP_LEN = 16'd72;
localparam [7:0] OPCODE_RC_ACK = 8'h11;
localparam [7:0] OPCODE_CNP = 8'h81;

// classes
localparam [2:0] CL_ARP = 3'd0;
localparam [2:0] CL_CM = 3'd1;
localparam [2:0] CL_ACK = 3'd2;
localparam [2:0] CL_CNP = 3'd3;
localparam [2:0] CL_BAD_ICRC = 3'd4;
localparam [2:0] CL_NOT_FOR_US = 3'd5;
localparam [2:0] CL_MALFORMED = 3'd6;
localparam [2:0] CL_UNSUPPORTED = 3'd7;

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
// Helpers

// bytes in a beat (tkeep is contiguous from lane 0)
function [KEEP_COUNT_WIDTH-1:0] keep_count(input [KEEP_WIDTH-1:0] k);
    integer i;
    begin
        keep_count = {KEEP_COUNT_WIDTH{1'b0}};
        for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
            if (k[i]) begin
                keep_count = i[KEEP_COUNT_WIDTH-1:0] + 1'b1;
            end
        end
    end
endfunction

// ---------------------------------------------------------------------------
// Capture

reg s_axis_tready_reg = 1'b0;

reg [8*HDR_BYTES-1:0] cap_reg = {8*HDR_BYTES{1'b0}};
reg [BEAT_WIDTH-1:0] beat_reg = {BEAT_WIDTH{1'b0}};     // saturates at HDR_BEATS
reg [LEN_WIDTH-1:0] len_reg = {LEN_WIDTH{1'b0}};        // bytes before this beat
reg cap_full_reg = 1'b0;      // cap_reg holds a whole frame D could not take yet
reg cap_user_reg = 1'b0;

// decision register
reg d_valid_reg = 1'b0;
reg [8*HDR_BYTES-1:0] d_hdr_reg = {8*HDR_BYTES{1'b0}};
reg [LEN_WIDTH-1:0] d_len_reg = {LEN_WIDTH{1'b0}};
reg d_user_reg = 1'b0;

wire s_go = s_axis_tvalid && s_axis_tready_reg;

assign s_axis_tready = s_axis_tready_reg;

// the header bytes with this beat written in
reg [8*HDR_BYTES-1:0] cap_next;
integer j;

always @* begin
    cap_next = cap_reg;
    for (j = 0; j < HDR_BYTES; j = j + 1) begin
        if ({{(32-BEAT_WIDTH){1'b0}}, beat_reg} == j / KEEP_WIDTH) begin
            cap_next[8*j +: 8] = s_axis_tdata[8*(j % KEEP_WIDTH) +: 8];
        end
    end
end

// the frame length up to and including this beat, saturating
wire [LEN_WIDTH:0] len_sum = {1'b0, len_reg} + {{(LEN_WIDTH+1-KEEP_COUNT_WIDTH){1'b0}}, keep_count(s_axis_tkeep)};
wire [LEN_WIDTH-1:0] len_next = len_sum[LEN_WIDTH] ? {LEN_WIDTH{1'b1}} : len_sum[LEN_WIDTH-1:0];

// ---------------------------------------------------------------------------
// Decision (from the D register only)

function [7:0] hdr_byte(input integer n);
    begin
        hdr_byte = d_hdr_reg[8*n +: 8];
    end
endfunction

wire [47:0] f_dst_mac = {hdr_byte(0), hdr_byte(1), hdr_byte(2), hdr_byte(3), hdr_byte(4), hdr_byte(5)};
wire [47:0] f_src_mac = {hdr_byte(6), hdr_byte(7), hdr_byte(8), hdr_byte(9), hdr_byte(10), hdr_byte(11)};
wire [15:0] f_ethertype = {hdr_byte(12), hdr_byte(13)};

// ARP (bytes 14-41)
wire [15:0] f_arp_htype = {hdr_byte(14), hdr_byte(15)};
wire [15:0] f_arp_ptype = {hdr_byte(16), hdr_byte(17)};
wire [7:0]  f_arp_hlen = hdr_byte(18);
wire [7:0]  f_arp_plen = hdr_byte(19);
wire [15:0] f_arp_oper = {hdr_byte(20), hdr_byte(21)};
wire [47:0] f_arp_sha = {hdr_byte(22), hdr_byte(23), hdr_byte(24), hdr_byte(25), hdr_byte(26), hdr_byte(27)};
wire [31:0] f_arp_spa = {hdr_byte(28), hdr_byte(29), hdr_byte(30), hdr_byte(31)};
wire [47:0] f_arp_tha = {hdr_byte(32), hdr_byte(33), hdr_byte(34), hdr_byte(35), hdr_byte(36), hdr_byte(37)};
wire [31:0] f_arp_tpa = {hdr_byte(38), hdr_byte(39), hdr_byte(40), hdr_byte(41)};

// IPv4 (bytes 14-33)
wire [3:0]  f_ip_version = d_hdr_reg[8*14+4 +: 4];
wire [3:0]  f_ip_ihl = d_hdr_reg[8*14 +: 4];
wire [15:0] f_ip_total_len = {hdr_byte(16), hdr_byte(17)};
wire        f_ip_mf = d_hdr_reg[8*20+5];
wire [12:0] f_ip_frag_off = {d_hdr_reg[8*20 +: 5], hdr_byte(21)};
wire [7:0]  f_ip_proto = hdr_byte(23);
wire [31:0] f_ip_src = {hdr_byte(26), hdr_byte(27), hdr_byte(28), hdr_byte(29)};
wire [31:0] f_ip_dst = {hdr_byte(30), hdr_byte(31), hdr_byte(32), hdr_byte(33)};

// UDP (bytes 34-41)
wire [15:0] f_udp_sport = {hdr_byte(34), hdr_byte(35)};
wire [15:0] f_udp_dport = {hdr_byte(36), hdr_byte(37)};
wire [15:0] f_udp_len = {hdr_byte(38), hdr_byte(39)};

// BTH (bytes 42-53) and AETH (54-57)
wire [7:0]  f_bth_opcode = hdr_byte(42);
wire [3:0]  f_bth_tver = d_hdr_reg[8*43 +: 4];
wire [23:0] f_bth_dest_qp = {hdr_byte(47), hdr_byte(48), hdr_byte(49)};
wire [23:0] f_bth_psn = {hdr_byte(51), hdr_byte(52), hdr_byte(53)};
wire [7:0]  f_aeth_syndrome = hdr_byte(54);
wire [23:0] f_aeth_msn = {hdr_byte(55), hdr_byte(56), hdr_byte(57)};

// CM payload (bytes 42-105), big-endian: byte 42 in the top bits
reg [511:0] f_cm_payload;
integer k;

always @* begin
    for (k = 0; k < 64; k = k + 1) begin
        f_cm_payload[511-8*k -: 8] = hdr_byte(42 + k);
    end
end

wire mac_ours = f_dst_mac == cfg_mac;
wire mac_bcast = f_dst_mac == 48'hFFFF_FFFF_FFFF;

// 14 + IPv4 total length, in the length's width
wire [LEN_WIDTH-1:0] ip_end = {{(LEN_WIDTH-16){1'b0}}, f_ip_total_len} + 17'd14;

reg [2:0] d_class;

always @* begin
    if (d_len_reg < 17'd14) begin
        d_class = CL_MALFORMED;
    end else if (!mac_ours && !mac_bcast) begin
        d_class = CL_NOT_FOR_US;
    end else if (f_ethertype == ETHERTYPE_ARP) begin
        if (d_len_reg < 17'd42) begin
            d_class = CL_MALFORMED;
        end else if (f_arp_htype != 16'd1 || f_arp_ptype != ETHERTYPE_IPV4 ||
                     f_arp_hlen != 8'd6 || f_arp_plen != 8'd4 ||
                     (f_arp_oper != 16'd1 && f_arp_oper != 16'd2)) begin
            d_class = CL_UNSUPPORTED;
        end else begin
            d_class = CL_ARP;
        end
    end else if (f_ethertype == ETHERTYPE_IPV4) begin
        if (d_len_reg < 17'd34) begin
            d_class = CL_MALFORMED;
        end else if (f_ip_version != 4'd4 || f_ip_ihl != 4'd5) begin
            d_class = CL_MALFORMED;
        end else if (f_ip_mf || f_ip_frag_off != 13'd0) begin
            d_class = CL_MALFORMED;
        end else if (f_ip_total_len < 16'd28 || ip_end > d_len_reg) begin
            d_class = CL_MALFORMED;
        end else if (!mac_ours || f_ip_dst != cfg_ip) begin
            d_class = CL_NOT_FOR_US;
        end else if (f_ip_proto != 8'd17) begin
            d_class = CL_UNSUPPORTED;
        end else if (f_udp_len != f_ip_total_len - 16'd20) begin
            d_class = CL_MALFORMED;
        end else if (f_udp_dport == UDP_PORT_CM) begin
            d_class = f_udp_len == CM_UDP_LEN ? CL_CM : CL_MALFORMED;
        end else if (f_udp_dport == UDP_PORT_ROCE) begin
            if (f_udp_len < 16'd24) begin
                d_class = CL_MALFORMED;
            end else if (d_user_reg) begin
                d_class = CL_BAD_ICRC;
            end else if (f_bth_tver != 4'd0) begin
                d_class = CL_UNSUPPORTED;
            end else if (f_bth_opcode == OPCODE_RC_ACK) begin
                d_class = f_udp_len < 16'd28 ? CL_MALFORMED : CL_ACK;
            end else if (f_bth_opcode == OPCODE_CNP) begin
                d_class = CL_CNP;
            end else begin
                d_class = CL_UNSUPPORTED;
            end
        end else begin
            d_class = CL_UNSUPPORTED;
        end
    end else begin
        d_class = CL_UNSUPPORTED;
    end
end

// ---------------------------------------------------------------------------
// Outputs

reg         m_arp_valid_reg = 1'b0;
reg [15:0]  m_arp_oper_reg = 16'd0;
reg [47:0]  m_arp_sha_reg = 48'd0;
reg [31:0]  m_arp_spa_reg = 32'd0;
reg [47:0]  m_arp_tha_reg = 48'd0;
reg [31:0]  m_arp_tpa_reg = 32'd0;

reg         m_cm_valid_reg = 1'b0;
reg [47:0]  m_cm_src_mac_reg = 48'd0;
reg [31:0]  m_cm_src_ip_reg = 32'd0;
reg [15:0]  m_cm_src_port_reg = 16'd0;
reg [511:0] m_cm_payload_reg = 512'd0;

reg         m_ack_valid_reg = 1'b0;
reg [31:0]  m_ack_src_ip_reg = 32'd0;
reg [23:0]  m_ack_dest_qp_reg = 24'd0;
reg [23:0]  m_ack_psn_reg = 24'd0;
reg [7:0]   m_ack_syndrome_reg = 8'd0;
reg [23:0]  m_ack_msn_reg = 24'd0;

reg         cnp_pulse_reg = 1'b0;
reg [23:0]  cnp_qp_reg = 24'd0;

reg [31:0]  rx_frames_reg = 32'd0;
reg [31:0]  rx_arp_reg = 32'd0;
reg [31:0]  rx_cm_reg = 32'd0;
reg [31:0]  rx_ack_reg = 32'd0;
reg [31:0]  rx_cnp_reg = 32'd0;
reg [31:0]  drop_bad_icrc_reg = 32'd0;
reg [31:0]  drop_not_for_us_reg = 32'd0;
reg [31:0]  drop_malformed_reg = 32'd0;
reg [31:0]  drop_unsupported_reg = 32'd0;

assign m_arp_valid = m_arp_valid_reg;
assign m_arp_oper = m_arp_oper_reg;
assign m_arp_sha = m_arp_sha_reg;
assign m_arp_spa = m_arp_spa_reg;
assign m_arp_tha = m_arp_tha_reg;
assign m_arp_tpa = m_arp_tpa_reg;

assign m_cm_valid = m_cm_valid_reg;
assign m_cm_src_mac = m_cm_src_mac_reg;
assign m_cm_src_ip = m_cm_src_ip_reg;
assign m_cm_src_port = m_cm_src_port_reg;
assign m_cm_payload = m_cm_payload_reg;

assign m_ack_valid = m_ack_valid_reg;
assign m_ack_src_ip = m_ack_src_ip_reg;
assign m_ack_dest_qp = m_ack_dest_qp_reg;
assign m_ack_psn = m_ack_psn_reg;
assign m_ack_syndrome = m_ack_syndrome_reg;
assign m_ack_msn = m_ack_msn_reg;

assign cnp_pulse = cnp_pulse_reg;
assign cnp_qp = cnp_qp_reg;

assign rx_frames = rx_frames_reg;
assign rx_arp = rx_arp_reg;
assign rx_cm = rx_cm_reg;
assign rx_ack = rx_ack_reg;
assign rx_cnp = rx_cnp_reg;
assign drop_bad_icrc = drop_bad_icrc_reg;
assign drop_not_for_us = drop_not_for_us_reg;
assign drop_malformed = drop_malformed_reg;
assign drop_unsupported = drop_unsupported_reg;

// a descriptor port can take one this cycle
wire arp_free = !m_arp_valid_reg || m_arp_ready;
wire cm_free = !m_cm_valid_reg || m_cm_ready;
wire ack_free = !m_ack_valid_reg || m_ack_ready;

reg d_commit;

always @* begin
    case (d_class)
        CL_ARP: d_commit = d_valid_reg && arp_free;
        CL_CM: d_commit = d_valid_reg && cm_free;
        CL_ACK: d_commit = d_valid_reg && ack_free;
        default: d_commit = d_valid_reg;
    endcase
end

// D can take a frame this cycle
wire d_free = !d_valid_reg || d_commit;
// the last beat of a frame goes to D, or stays in cap_reg
wire last_to_d = s_go && s_axis_tlast && d_free;
wire last_to_cap = s_go && s_axis_tlast && !d_free;
wire cap_to_d = cap_full_reg && d_free;

always @(posedge clk) begin
    // capture
    if (s_go) begin
        cap_reg <= cap_next;
        if (s_axis_tlast) begin
            beat_reg <= {BEAT_WIDTH{1'b0}};
            len_reg <= {LEN_WIDTH{1'b0}};
        end else begin
            if (beat_reg != HDR_BEATS[BEAT_WIDTH-1:0]) begin
                beat_reg <= beat_reg + 1'b1;
            end
            len_reg <= len_next;
        end
    end
    if (last_to_cap) begin
        // the whole frame stays in the capture registers until D is free
        len_reg <= len_next;
        cap_user_reg <= s_axis_tuser;
        cap_full_reg <= 1'b1;
    end
    if (cap_to_d) begin
        len_reg <= {LEN_WIDTH{1'b0}};
        cap_full_reg <= 1'b0;
    end
    // ready next cycle unless the capture registers hold a waiting frame
    s_axis_tready_reg <= !(last_to_cap || (cap_full_reg && !d_free));

    // decision register
    if (d_commit) begin
        d_valid_reg <= 1'b0;
    end
    if (last_to_d) begin
        d_valid_reg <= 1'b1;
        d_hdr_reg <= cap_next;
        d_len_reg <= len_next;
        d_user_reg <= s_axis_tuser;
    end else if (cap_to_d) begin
        d_valid_reg <= 1'b1;
        d_hdr_reg <= cap_reg;
        d_len_reg <= len_reg;
        d_user_reg <= cap_user_reg;
    end

    // outputs
    if (m_arp_ready) begin
        m_arp_valid_reg <= 1'b0;
    end
    if (m_cm_ready) begin
        m_cm_valid_reg <= 1'b0;
    end
    if (m_ack_ready) begin
        m_ack_valid_reg <= 1'b0;
    end
    cnp_pulse_reg <= 1'b0;

    if (d_commit) begin
        rx_frames_reg <= rx_frames_reg + 1'b1;
        case (d_class)
            CL_ARP: begin
                m_arp_valid_reg <= 1'b1;
                m_arp_oper_reg <= f_arp_oper;
                m_arp_sha_reg <= f_arp_sha;
                m_arp_spa_reg <= f_arp_spa;
                m_arp_tha_reg <= f_arp_tha;
                m_arp_tpa_reg <= f_arp_tpa;
                rx_arp_reg <= rx_arp_reg + 1'b1;
            end
            CL_CM: begin
                m_cm_valid_reg <= 1'b1;
                m_cm_src_mac_reg <= f_src_mac;
                m_cm_src_ip_reg <= f_ip_src;
                m_cm_src_port_reg <= f_udp_sport;
                m_cm_payload_reg <= f_cm_payload;
                rx_cm_reg <= rx_cm_reg + 1'b1;
            end
            CL_ACK: begin
                m_ack_valid_reg <= 1'b1;
                m_ack_src_ip_reg <= f_ip_src;
                m_ack_dest_qp_reg <= f_bth_dest_qp;
                m_ack_psn_reg <= f_bth_psn;
                m_ack_syndrome_reg <= f_aeth_syndrome;
                m_ack_msn_reg <= f_aeth_msn;
                rx_ack_reg <= rx_ack_reg + 1'b1;
            end
            CL_CNP: begin
                cnp_pulse_reg <= 1'b1;
                cnp_qp_reg <= f_bth_dest_qp;
                rx_cnp_reg <= rx_cnp_reg + 1'b1;
            end
            CL_BAD_ICRC: begin
                drop_bad_icrc_reg <= drop_bad_icrc_reg + 1'b1;
            end
            CL_NOT_FOR_US: begin
                drop_not_for_us_reg <= drop_not_for_us_reg + 1'b1;
            end
            CL_MALFORMED: begin
                drop_malformed_reg <= drop_malformed_reg + 1'b1;
            end
            default: begin
                drop_unsupported_reg <= drop_unsupported_reg + 1'b1;
            end
        endcase
    end

    if (rst) begin
        s_axis_tready_reg <= 1'b0;
        beat_reg <= {BEAT_WIDTH{1'b0}};
        len_reg <= {LEN_WIDTH{1'b0}};
        cap_full_reg <= 1'b0;
        d_valid_reg <= 1'b0;
        m_arp_valid_reg <= 1'b0;
        m_cm_valid_reg <= 1'b0;
        m_ack_valid_reg <= 1'b0;
        cnp_pulse_reg <= 1'b0;
        rx_frames_reg <= 32'd0;
        rx_arp_reg <= 32'd0;
        rx_cm_reg <= 32'd0;
        rx_ack_reg <= 32'd0;
        rx_cnp_reg <= 32'd0;
        drop_bad_icrc_reg <= 32'd0;
        drop_not_for_us_reg <= 32'd0;
        drop_malformed_reg <= 32'd0;
        drop_unsupported_reg <= 32'd0;
    end
end

endmodule

`default_nettype wire
`resetall
