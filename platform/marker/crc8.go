package marker

import "encoding/binary"

// checksum is the CRC-8 of id's 8 big-endian bytes.
func checksum(id uint64) byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return crc8(b[:])
}

// crc8 is CRC-8 with polynomial x^8+x^2+x+1 (0x07), initial value 0, no reflection, no final
// XOR (CRC-8/SMBUS; its check value over "123456789" is 0xF4).
func crc8(data []byte) byte {
	var crc byte
	for _, x := range data {
		crc ^= x
		for range 8 {
			if crc&0x80 != 0 {
				crc = crc<<1 ^ 0x07
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
