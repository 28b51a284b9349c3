/**
 * A decoded response in dns-packet's shapes, through the adapters
 * of test/helpers/dns-packet-shapes.ts: the decoder tests compare the record model with
 * dns-packet's `decode` this way (issue 19: the decoder no longer mimics it).
 */
import type { Answer, Question } from 'dns-packet';
import { toDnsPacketAnswer, toDnsPacketQuestion } from '../../helpers/dns-packet-shapes.ts';
import type { DecodedResponse } from '../../../src/dns/core/wire/response.ts';

export function asDnsPacket(m: DecodedResponse): DecodedResponse<Question, Answer> {
  return {
    ...m,
    questions: m.questions.map(toDnsPacketQuestion),
    answers: m.answers.map(toDnsPacketAnswer),
    authorities: m.authorities.map(toDnsPacketAnswer),
    additionals: m.additionals.map(toDnsPacketAnswer),
  };
}
