import type { INodeProperties } from 'n8n-workflow';

import type { PersonaEntry } from '../../shared/api';
import { listOperation } from './listOf';
import { optionsCollection } from '../../shared/parameters/requestOptions';

/** List Personas: one item per entry of GET /personas/available (docs/api.md#personas). */

export const description: INodeProperties[] = [optionsCollection('listPersonas')];

export const execute = listOperation<PersonaEntry>('personas', '/personas/available');
