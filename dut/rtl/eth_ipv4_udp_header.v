/*
 * eth_ipv4_udp_header: the 42-byte Ethernet II + IPv4 + UDP header of every
 * IPv4 frame the endpoint sends (combinational; no clock).
 *
 *   bytes  0-13  Ethernet II: dst_mac, src_mac, ethertype 0x0800
 *   bytes 14-33  IPv4: version 4, IHL 5, tos, ip_total_length, ip_id,
 *                flags DF (fragment offset 0), TTL 64, protocol 17 (UDP),
 *                header checksum (computed here), src_ip, dst_ip
 *   bytes 34-41  UDP: udp_src_port, udp_dst_port, udp_length, checksum 0
 *
 * Byte n of the header is header[8*n +: 8] (byte 0 in bits [7:0], as frames
 * are laid out on the streams); multi-byte fields are big-endian on the wire.
 * The lengths are the caller's: nothing here checks them against each other.
 *
 * Used by roce_tx_frame (request frames) and roce_cm (CM replies); eth_arp
 * builds its own 14 Ethernet bytes (ethertype 0x0806, no IP header).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module eth_ipv4_udp_header
(
    input  wire [47:0]       dst_mac,
    input  wire [47:0]       src_mac,
    input  wire [31:0]       src_ip,
    input  wire [31:0]       dst_ip,
    input  wire [15:0]       ip_id,
    input  wire [7:0]        tos,
    input  wire [15:0]       ip_total_length,
    input  wire [15:0]       udp_src_port,
    input  wire [15:0]       udp_dst_port,
    input  wire [15:0]       udp_length,

    output wire [8*42-1:0]   header
);

localparam [15:0] ETHERTYPE_IPV4 = 16'h0800;
localparam [7:0]  IP_VER_IHL = 8'h45;       // version 4, 5 words
localparam [15:0] IP_FLAGS_FRAG = 16'h4000; // DF, fragment offset 0
localparam [7:0]  IP_TTL = 8'd64;
localparam [7:0]  IP_PROTO_UDP = 8'd17;

// The IPv4 header as ten big-endian 16-bit words, word 0 in the top bits,
// checksum field (word 5) zero: the checksum is the one's complement of the
// one's complement sum of these words.
wire [159:0] ip_words = {
    IP_VER_IHL, tos,
    ip_total_length,
    ip_id,
    IP_FLAGS_FRAG,
    IP_TTL, IP_PROTO_UDP,
    16'h0000,
    src_ip,
    dst_ip
};

reg [19:0] csum_sum;
reg [16:0] csum_fold1;
reg [15:0] csum_fold2;
reg [15:0] csum;
integer i;

always @* begin
    csum_sum = 20'd0;
    for (i = 9; i >= 0; i = i - 1)
        csum_sum = csum_sum + {4'd0, ip_words[16*i +: 16]};
    csum_fold1 = {1'b0, csum_sum[15:0]} + {13'd0, csum_sum[19:16]};
    csum_fold2 = csum_fold1[15:0] + {15'd0, csum_fold1[16]};
    csum = ~csum_fold2;
end

// the whole header in wire order, byte 0 in the top bits
wire [8*42-1:0] hdr_be = {
    dst_mac, src_mac, ETHERTYPE_IPV4,
    ip_words[159:80], csum, ip_words[63:0],
    udp_src_port, udp_dst_port, udp_length, 16'h0000
};

genvar n;
generate
    for (n = 0; n < 42; n = n + 1) begin : g_byte
        assign header[8*n +: 8] = hdr_be[8*(41-n) +: 8];
    end
endgenerate

endmodule

`default_nettype wire
`resetall
